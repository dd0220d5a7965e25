import { GetObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { s3Client } from '../../platform/aws-clients';
import { env } from '../../platform/env';
import { RawReply } from '../../platform/http/reply';
import { getBytes } from '../common/inspect-store';

/** How long a redirect to a stored screenshot or zip works: long enough to follow, short enough not to be a share. */
const PRESIGNED_SECONDS = 900;

/**
 * A stored object (a screenshot, an export zip) answered to a caller who may see it. On AWS a 302
 * to a presigned S3 URL, so neither API Gateway's 10 MB nor Lambda's 6 MB response limit applies;
 * in local mode the bytes themselves, from the S3 stand-in. Undefined when there is no such object
 * (local mode can tell; on AWS the caller knows it was written).
 */
export async function deliverObject(key: string, contentType: string, filename?: string): Promise<RawReply | undefined> {
  const disposition = filename ? `attachment; filename="${filename}"` : undefined;
  if (env().S3_ENDPOINT) {
    const stored = await getBytes(key);
    if (!stored) return undefined;
    return new RawReply(200, stored.bytes, { 'content-type': contentType, 'cache-control': 'private, max-age=300', ...(disposition ? { 'content-disposition': disposition } : {}) });
  }
  const url = await getSignedUrl(s3Client(), new GetObjectCommand({ Bucket: env().INSPECT_BUCKET, Key: key, ResponseContentType: contentType, ResponseContentDisposition: disposition }), { expiresIn: PRESIGNED_SECONDS });
  return new RawReply(302, '', { location: url, 'cache-control': 'no-store' });
}
