import { randomUUID, createHash } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

// s3rver ships no types; this is the part of its API we use.
interface StoredObject {
  bucket: string;
  key: string;
  content: Buffer | Readable;
  metadata: Record<string, string>;
}
interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
}
interface S3rverInstance {
  store: FilesystemStore;
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

/**
 * A PUT as S3 makes it: the object appears whole or not at all. s3rver writes the object's file
 * in place and, for a body given whole, writes its metadata before the file is flushed; a GET
 * meanwhile reads the file's length so far, so a reader could get the first part of a JSON
 * document (an inspection result polled while its job wrote it). Here the body goes to a file of
 * its own, the metadata is written, and then the file is renamed into place.
 */
async function putObjectWhole(store: FilesystemStore, object: StoredObject): Promise<{ size: number; md5: string }> {
  const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
  await mkdir(dirname(objectPath), { recursive: true });
  const partial = `${objectPath}.${randomUUID()}.partial`;
  const md5 = createHash('md5');
  let size = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      md5.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content, counted, createWriteStream(partial));
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    await rename(partial, objectPath);
    return { size, md5: digest };
  } finally {
    await rm(partial, { force: true });
  }
}

/** An S3 API on loopback (path-style) storing objects as files under `directory`. */
export async function startS3(directory: string, buckets: readonly string[]): Promise<LocalS3> {
  mkdirSync(directory, { recursive: true });
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true, configureBuckets: buckets.map((name) => ({ name })) });
  server.store.putObject = (object) => putObjectWhole(server.store, object);
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, close: () => server.close() };
}
