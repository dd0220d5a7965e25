import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

// s3rver ships no types; this is the part of its API we use.
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: { port: number; address: string; directory: string; silent: boolean; configureBuckets: Array<{ name: string }> }) => S3rverInstance;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as S3rverClass;

export interface LocalS3 {
  endpoint: string;
  close(): Promise<void>;
}

/** An S3 API on loopback (path-style) storing objects as files under `directory`. */
export async function startS3(directory: string, buckets: readonly string[]): Promise<LocalS3> {
  mkdirSync(directory, { recursive: true });
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true, configureBuckets: buckets.map((name) => ({ name })) });
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, close: () => server.close() };
}
