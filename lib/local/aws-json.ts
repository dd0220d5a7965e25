import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The AWS JSON 1.0 protocol as SQS and Step Functions speak it: the operation named by the
 * X-Amz-Target header (`<Service>.<Operation>`), a JSON body in, a JSON body out.
 */
export async function readAwsJsonRequest(req: IncomingMessage): Promise<{ operation: string; input: Record<string, unknown> | undefined }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const operation = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
  try {
    return { operation, input: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown> };
  } catch {
    return { operation, input: undefined };
  }
}

export function replyAwsJson(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
  res.end(JSON.stringify(payload));
}
