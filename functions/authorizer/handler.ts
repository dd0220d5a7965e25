import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { logger } from '../platform/logger';
import type { AuthorizerContext } from '../platform/principal';
import { authenticate } from './authenticate';

/**
 * HTTP API REQUEST authorizer (simple responses, cached on the Authorization header). It always
 * authorizes and hands its verdict to the handler, which answers refused keys with 401 and a
 * Mailgun-shaped body; requests with no Authorization header never reach it (API Gateway: 401).
 */
export async function handler(
  event: APIGatewayRequestAuthorizerEventV2,
): Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>> {
  const authorization = event.headers?.authorization ?? event.identitySource?.[0];
  try {
    return { isAuthorized: true, context: await authenticate(authorization, Date.now(), event.requestContext?.http?.sourceIp) };
  } catch (error) {
    // A store outage must not let anyone in, nor pass for a bad key.
    logger.error('authorizer failed', { error: error as Error });
    return { isAuthorized: false, context: { denied: 'Service unavailable' } };
  }
}
