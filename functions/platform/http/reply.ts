import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** What an operation returns when 200 with a JSON body is not what it means. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export function jsonResult(status: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}
