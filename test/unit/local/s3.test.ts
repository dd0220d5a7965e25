import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startS3, type LocalS3 } from '../../../lib/local/s3';

// Local mode's S3 as a reader polling for an object sees it: absent, or whole. A job writes an
// inspection result while the API polls for it; a part of the JSON document would be a 500.
let dir: string;
let s3: LocalS3;
let client: S3Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'local-s3-'));
  s3 = await startS3(dir, ['results']);
  client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
});
afterAll(async () => {
  client?.destroy();
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('an object being written is absent or whole to a reader, never a part of it', async () => {
  const body = JSON.stringify({ items: Array.from({ length: 40_000 }, (_, i) => ({ i, text: 'x'.repeat(40) })) });
  const seen = { absent: 0, whole: 0, partial: 0 };
  for (let round = 0; round < 15; round++) {
    const Key = `result-${round}.json`;
    let written = false;
    const reader = (async () => {
      while (!written) {
        try {
          const text = await (await client.send(new GetObjectCommand({ Bucket: 'results', Key }))).Body!.transformToString();
          if (text === body) seen.whole++;
          else seen.partial++;
        } catch (error) {
          if ((error as Error).name !== 'NoSuchKey') throw error;
          seen.absent++;
        }
      }
    })();
    await client.send(new PutObjectCommand({ Bucket: 'results', Key, Body: body, ContentType: 'application/json' }));
    written = true;
    await reader;
    const after = await client.send(new GetObjectCommand({ Bucket: 'results', Key }));
    expect([after.ContentType, await after.Body!.transformToString()]).toEqual(['application/json', body]);
  }
  expect(seen.partial).toBe(0);
  expect(seen.absent + seen.whole).toBeGreaterThan(0);
});
