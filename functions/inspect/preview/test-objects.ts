import { DeleteObjectsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3Client } from '../../platform/aws-clients';
import { env } from '../../platform/env';
import { testObjectsPrefix } from './preview-store';

/** Deletes everything stored for a preview test (HTML, screenshots of every run, export zips): the spec's "irrecoverable". */
export async function deleteTestObjects(accountId: string, testId: string): Promise<void> {
  const bucket = env().INSPECT_BUCKET;
  let token: string | undefined;
  do {
    const page = await s3Client().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: testObjectsPrefix(accountId, testId), ContinuationToken: token }));
    const objects = (page.Contents ?? []).map((object) => ({ Key: object.Key! }));
    if (objects.length) await s3Client().send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}
