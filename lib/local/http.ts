// HTTP plumbing the local stand-ins share.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The whole body of a request or reply. */
export async function readBody(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts `server` on a free loopback port and returns its base URL. */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server`, if there is one, once its connections have ended. */
export async function closeServer(server?: Server): Promise<void> {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
}

/** What a stand-in answers when its handler fails: the reply the real service gives for its own fault. */
export type FailureReply = (res: ServerResponse, error: Error) => void;

const internalError: FailureReply = (res, error) => {
  res.writeHead(500, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ __type: 'InternalFailure', message: error.message }));
};

/**
 * A stand-in's HTTP server whose handler may fail without taking the host down: a request it
 * cannot handle (malformed, or cut off by its client) gets a 500, or its connection closed if the
 * reply had begun.
 */
export function standInServer(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>, failure: FailureReply = internalError): Server {
  return createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (res.headersSent) res.destroy();
      else failure(res, error);
    });
  });
}
