import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** What an operation returns when 200 with a JSON body is not what it means. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A non-JSON reply (a tracking pixel, a redirect, a page), for public routes only. */
export class RawReply {
  constructor(
    readonly status: number,
    readonly body: string | Buffer,
    readonly headers: Record<string, string>,
  ) {}
}

export function rawResult(reply: RawReply): APIGatewayProxyStructuredResultV2 {
  const binary = Buffer.isBuffer(reply.body);
  return { statusCode: reply.status, headers: reply.headers, body: binary ? reply.body.toString('base64') : reply.body, isBase64Encoded: binary };
}

/**
 * The reply to HEAD: the GET's status and headers with no body, its length still declared, as
 * HTTP asks (RFC 9110 §9.3.2).
 */
export function withoutBody(result: APIGatewayProxyStructuredResultV2): APIGatewayProxyStructuredResultV2 {
  const length = result.body ? Buffer.byteLength(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : 0;
  return { statusCode: result.statusCode, headers: { ...result.headers, 'content-length': String(length) }, ...(result.cookies ? { cookies: result.cookies } : {}) };
}

export function jsonResult(status: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}
