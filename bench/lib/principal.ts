import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { handler as authorizer } from '../../functions/authorizer/handler';
import { listDomainItems } from '../../functions/domains/domain-store';
import { withEnv } from '../../functions/platform/env';
import type { Principal } from '../../functions/platform/principal';

export const basicAuth = (key: string): string => `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;

/**
 * The authorizer's verdict for `authorization` (what the gateway hands the area handlers, run in
 * this process against the region's table) and that account's sandbox domain, active from the start.
 */
export async function primaryPrincipal(env: Record<string, string | undefined>, authorization: string): Promise<{ principal: Principal; sandbox: string }> {
  return withEnv(env, async () => {
    const verdict = await authorizer({ headers: { authorization }, identitySource: [authorization] } as unknown as APIGatewayRequestAuthorizerEventV2);
    const context = verdict.context;
    if (!verdict.isAuthorized || context.denied !== undefined) throw new Error(`the authorizer refused the bench key: ${context.denied ?? 'not authorized'}`);
    const sandbox = (await listDomainItems(context.accountId)).find((d) => d.type === 'sandbox');
    if (!sandbox) throw new Error(`account ${context.accountId} has no sandbox domain`);
    return { principal: context, sandbox: sandbox.name };
  });
}
