import { createPublicKey, createSign, createVerify } from 'node:crypto';
import { dkimRecordValue, generateDkimKey, pemBody, publicKeyOf } from '../../../functions/domains/dkim';

it('makes a key pair whose DNS value verifies signatures of the private half', async () => {
  const pair = await generateDkimKey(1024);
  const record = dkimRecordValue(pair.publicKey);
  const published = publicKeyOf(record.replace('p=', 'p= ').replace(/(.{40})/g, '$1 '))!;
  const signature = createSign('sha256').update('message').sign(pair.privateKeyPem);
  const publicKey = createPublicKey({ key: Buffer.from(published, 'base64'), format: 'der', type: 'spki' });
  expect(createVerify('sha256').update('message').verify(publicKey, signature)).toBe(true);
  expect(pemBody(pair.privateKeyPem)).toMatch(/^[A-Za-z0-9+/]+=*$/);
  expect(pair.privateKeyPem).toContain('BEGIN RSA PRIVATE KEY');
});
