import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from './http';

/**
 * The AWS JSON 1.0 protocol as SQS and Step Functions speak it: the operation named by the
 * X-Amz-Target header (`<Service>.<Operation>`), a JSON body in, a JSON body out.
 */
export async function readAwsJsonRequest(req: IncomingMessage): Promise<{ operation: string; input: Record<string, unknown> | undefined }> {
  const body = await readBody(req);
  const operation = awsJsonOperation(req);
  try {
    return { operation, input: JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown> };
  } catch {
    return { operation, input: undefined };
  }
}

/** The operation a request's X-Amz-Target header names (`<Service>.<Operation>`). */
export function awsJsonOperation(req: IncomingMessage): string {
  return String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
}

export function replyAwsJson(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
  res.end(JSON.stringify(payload));
}
