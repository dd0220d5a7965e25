/** HTTP plumbing the local stand-ins share. */

/** The whole body of a request or reply. */
export async function readBody(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
