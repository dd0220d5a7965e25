import {
  CreateApiMappingCommand,
  CreateDomainNameCommand,
  DeleteApiMappingCommand,
  DeleteDomainNameCommand,
  GetApiMappingsCommand,
  GetDomainNameCommand,
  UpdateDomainNameCommand,
  type DomainNameConfiguration,
} from '@aws-sdk/client-apigatewayv2';
import { apiGatewayClient } from '../platform/aws-clients';

// How a tracking host is served over HTTPS: an API Gateway (v2) regional custom domain name with
// the host's ACM certificate, mapped to the tracking API (its public tracking routes only). Local
// mode answers the same calls from a stand-in its HTTPS listener reads (lib/local/apigateway-standin.ts).

const isNamed = (error: unknown, ...names: string[]) => names.includes((error as Error).name);

async function domainName(host: string): Promise<DomainNameConfiguration | undefined> {
  try {
    const out = await apiGatewayClient().send(new GetDomainNameCommand({ DomainName: host }));
    return out.DomainNameConfigurations?.[0] ?? {};
  } catch (error) {
    if (isNamed(error, 'NotFoundException')) return undefined;
    throw error;
  }
}

const configurationFor = (certificateArn: string): DomainNameConfiguration => ({ CertificateArn: certificateArn, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' });

/**
 * Serves `host` with `certificateArn` through the API `apiId`: creates its custom domain name (or
 * points an existing one at the new certificate) and its API mapping. Safe to repeat. Answers the
 * regional domain name the host's CNAME must point to.
 */
export async function serveOverHttps(host: string, certificateArn: string, apiId: string): Promise<{ target: string }> {
  const client = apiGatewayClient();
  let config = await domainName(host);
  if (!config) {
    try {
      const out = await client.send(new CreateDomainNameCommand({ DomainName: host, DomainNameConfigurations: [configurationFor(certificateArn)] }));
      config = out.DomainNameConfigurations?.[0];
    } catch (error) {
      // Created meanwhile by an earlier attempt of this step: carry on with it.
      if (!isNamed(error, 'ConflictException')) throw error;
      config = await domainName(host);
    }
  }
  if (config?.CertificateArn !== certificateArn) {
    const out = await client.send(new UpdateDomainNameCommand({ DomainName: host, DomainNameConfigurations: [configurationFor(certificateArn)] }));
    config = out.DomainNameConfigurations?.[0];
  }
  const mappings = await client.send(new GetApiMappingsCommand({ DomainName: host }));
  if (!(mappings.Items ?? []).some((m) => m.ApiId === apiId)) {
    await client.send(new CreateApiMappingCommand({ DomainName: host, ApiId: apiId, Stage: '$default' }));
  }
  if (!config?.ApiGatewayDomainName) throw new Error(`API Gateway gave no regional domain name for ${host}`);
  return { target: config.ApiGatewayDomainName };
}

/**
 * Stops serving `host` over HTTPS, if `certificateArn` is the certificate it is served with (a
 * newer job for the same host keeps its own): deletes the API mappings and the custom domain name.
 */
export async function stopServing(host: string, certificateArn: string): Promise<void> {
  const client = apiGatewayClient();
  const config = await domainName(host);
  if (!config || config.CertificateArn !== certificateArn) return;
  const mappings = await client.send(new GetApiMappingsCommand({ DomainName: host }));
  for (const mapping of mappings.Items ?? []) {
    if (mapping.ApiMappingId) await client.send(new DeleteApiMappingCommand({ DomainName: host, ApiMappingId: mapping.ApiMappingId }));
  }
  try {
    await client.send(new DeleteDomainNameCommand({ DomainName: host }));
  } catch (error) {
    if (!isNamed(error, 'NotFoundException')) throw error;
  }
}
