import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback, readBody, standInServer } from './http';
import { writeStateFile } from './state-file';

/** A custom domain name: the certificate it is served with, and the APIs mapped to it. */
interface DomainNameRecord {
  domainName: string;
  certificateArn: string;
  securityPolicy: string;
  mappings: Array<{ apiMappingId: string; apiId: string; stage: string; apiMappingKey: string }>;
}

export interface ApiGatewayStandInOptions {
  region: string;
  /** Where domain names persist; undefined keeps them in memory. */
  stateFile?: string;
  /** The regional domain name every custom domain name answers on (local mode: its tracking CNAME target). */
  regionalTarget: () => string;
  /** The APIs that can be mapped, by id. */
  apiIds: readonly string[];
  /** ACM's side: a certificate must be issued to be attached, and is marked in use while it is. */
  certificates: { isIssued(arn: string): boolean; markInUse(arn: string, by: string, inUse: boolean): void };
}

class ApiGatewayError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** Route 53's hosted zone of API Gateway's regional endpoints in us-east-1; any value serves locally. */
const HOSTED_ZONE_ID = 'Z1UJRXOUMOOFQ8';

/**
 * API Gateway's v2 management API as far as tracking certificates use it, over the REST-JSON
 * protocol the SDK's client speaks (APIGATEWAY_ENDPOINT points here): custom domain names
 * (create, get, update, delete) and their API mappings. Local mode's HTTPS listener reads what is
 * here to choose, per host name (SNI), the certificate and the API, as API Gateway's regional
 * endpoint does (lib/local/tracking-tls.ts).
 */
export class ApiGatewayStandIn {
  private server?: Server;
  private readonly domains = new Map<string, DomainNameRecord>();

  constructor(private readonly options: ApiGatewayStandInOptions) {
    if (options.stateFile && existsSync(options.stateFile)) {
      for (const record of JSON.parse(readFileSync(options.stateFile, 'utf8')) as DomainNameRecord[]) this.domains.set(record.domainName, record);
    }
  }

  async listen(): Promise<string> {
    this.server = standInServer((req, res) => this.handle(req, res));
    return listenOnLoopback(this.server);
  }

  async close(): Promise<void> {
    await closeServer(this.server);
  }

  /** What serves `host`: its certificate and the API mapped at its root; undefined when nothing does. */
  route(host: string): { certificateArn: string; apiId: string } | undefined {
    const record = this.domains.get(host.toLowerCase().replace(/\.$/, ''));
    const mapping = record?.mappings.find((m) => m.apiMappingKey === '');
    return record && mapping ? { certificateArn: record.certificateArn, apiId: mapping.apiId } : undefined;
  }

  private persist(): void {
    const file = this.options.stateFile;
    if (!file) return;
    writeStateFile(file, JSON.stringify([...this.domains.values()]));
  }

  private domainArn(name: string): string {
    return `arn:aws:apigateway:${this.options.region}::/domainnames/${name}`;
  }

  private json(record: DomainNameRecord) {
    return {
      domainName: record.domainName,
      apiMappingSelectionExpression: '$request.basepath',
      domainNameConfigurations: [
        {
          apiGatewayDomainName: this.options.regionalTarget(),
          certificateArn: record.certificateArn,
          domainNameStatus: 'AVAILABLE',
          endpointType: 'REGIONAL',
          hostedZoneId: HOSTED_ZONE_ID,
          securityPolicy: record.securityPolicy,
        },
      ],
    };
  }

  private find(name: string): DomainNameRecord {
    const record = this.domains.get(name.toLowerCase());
    if (!record) throw new ApiGatewayError(404, 'NotFoundException', 'Invalid domain name identifier specified');
    return record;
  }

  /** The one configuration a regional domain name has, checked as API Gateway checks it. */
  private configuration(input: Record<string, unknown>): { certificateArn: string; securityPolicy: string } {
    const configs = input['domainNameConfigurations'];
    const config = (Array.isArray(configs) ? configs[0] : undefined) as Record<string, unknown> | undefined;
    const certificateArn = typeof config?.['certificateArn'] === 'string' ? config['certificateArn'] : '';
    if ((config?.['endpointType'] ?? 'REGIONAL') !== 'REGIONAL') throw new ApiGatewayError(400, 'BadRequestException', 'Only REGIONAL endpoints are supported');
    if (!this.options.certificates.isIssued(certificateArn)) throw new ApiGatewayError(400, 'BadRequestException', `Certificate ${certificateArn} not found or not issued`);
    return { certificateArn, securityPolicy: typeof config?.['securityPolicy'] === 'string' ? config['securityPolicy'] : 'TLS_1_2' };
  }

  private createDomainName(input: Record<string, unknown>) {
    const domainName = String(input['domainName'] ?? '').toLowerCase();
    if (!domainName) throw new ApiGatewayError(400, 'BadRequestException', 'domainName is required');
    if (this.domains.has(domainName)) throw new ApiGatewayError(409, 'ConflictException', `The domain name you provided already exists: ${domainName}`);
    const { certificateArn, securityPolicy } = this.configuration(input);
    const record: DomainNameRecord = { domainName, certificateArn, securityPolicy, mappings: [] };
    this.domains.set(domainName, record);
    this.options.certificates.markInUse(certificateArn, this.domainArn(domainName), true);
    this.persist();
    return this.json(record);
  }

  private updateDomainName(name: string, input: Record<string, unknown>) {
    const record = this.find(name);
    const { certificateArn, securityPolicy } = this.configuration(input);
    if (certificateArn !== record.certificateArn) {
      this.options.certificates.markInUse(record.certificateArn, this.domainArn(record.domainName), false);
      this.options.certificates.markInUse(certificateArn, this.domainArn(record.domainName), true);
    }
    Object.assign(record, { certificateArn, securityPolicy });
    this.persist();
    return this.json(record);
  }

  private deleteDomainName(name: string): void {
    const record = this.find(name);
    this.domains.delete(record.domainName);
    this.options.certificates.markInUse(record.certificateArn, this.domainArn(record.domainName), false);
    this.persist();
  }

  private createApiMapping(name: string, input: Record<string, unknown>) {
    const record = this.find(name);
    const apiId = String(input['apiId'] ?? '');
    if (!this.options.apiIds.includes(apiId)) throw new ApiGatewayError(404, 'NotFoundException', 'Invalid API identifier specified');
    const apiMappingKey = String(input['apiMappingKey'] ?? '');
    if (record.mappings.some((m) => m.apiMappingKey === apiMappingKey)) throw new ApiGatewayError(409, 'ConflictException', 'ApiMapping already exists for this domain name and key');
    const mapping = { apiMappingId: randomBytes(3).toString('hex'), apiId, stage: String(input['stage'] ?? '$default'), apiMappingKey };
    record.mappings.push(mapping);
    this.persist();
    return mapping;
  }

  private deleteApiMapping(name: string, id: string): void {
    const record = this.find(name);
    if (!record.mappings.some((m) => m.apiMappingId === id)) throw new ApiGatewayError(404, 'NotFoundException', 'Invalid API mapping identifier specified');
    record.mappings = record.mappings.filter((m) => m.apiMappingId !== id);
    this.persist();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, payload?: unknown, type?: string) => {
      res.writeHead(status, { 'content-type': 'application/json', ...(type ? { 'x-amzn-errortype': type } : {}) });
      res.end(payload === undefined ? '' : JSON.stringify(payload));
    };
    const method = (req.method ?? 'GET').toUpperCase();
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.split('/').map((part) => decodeURIComponent(part));
    const text = (await readBody(req)).toString('utf8');
    try {
      let input: Record<string, unknown> = {};
      try {
        input = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        throw new ApiGatewayError(400, 'BadRequestException', 'Malformed JSON');
      }
      // ['', 'v2', 'domainnames', name?, 'apimappings'?, id?]
      const [, version, collection, name, sub, id] = path;
      if (version !== 'v2' || collection !== 'domainnames') throw new ApiGatewayError(404, 'NotFoundException', `${method} ${req.url} is not supported by the local API Gateway stand-in`);
      if (name === undefined && method === 'POST') return reply(201, this.createDomainName(input));
      if (name !== undefined && sub === undefined) {
        if (method === 'GET') return reply(200, this.json(this.find(name)));
        if (method === 'PATCH') return reply(200, this.updateDomainName(name, input));
        if (method === 'DELETE') return (this.deleteDomainName(name), reply(204));
      }
      if (name !== undefined && sub === 'apimappings') {
        if (id === undefined && method === 'POST') return reply(201, this.createApiMapping(name, input));
        if (id === undefined && method === 'GET') return reply(200, { items: this.find(name).mappings });
        if (id !== undefined && method === 'DELETE') return (this.deleteApiMapping(name, id), reply(204));
      }
      throw new ApiGatewayError(404, 'NotFoundException', `${method} ${req.url} is not supported by the local API Gateway stand-in`);
    } catch (error) {
      if (error instanceof ApiGatewayError) return reply(error.status, { message: error.message }, error.type);
      return reply(500, { message: (error as Error).message }, 'InternalServerErrorException');
    }
  }
}
