import { decryptSecret, encryptSecret, hashPassword, verifyPassword } from '../../../functions/platform/secrets';
import { withEnv } from '../../../functions/platform/env';

const envWithKey = (key: string) => ({ TABLE_NAME: 't', ENCRYPTION_KEY: key });

it('seals secrets so they open only with the same key', async () => {
  const sealed = await withEnv(envWithKey('key-one'), () => encryptSecret('-----BEGIN RSA PRIVATE KEY-----'));
  expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
  expect(sealed).not.toContain('PRIVATE');
  await expect(withEnv(envWithKey('key-one'), () => decryptSecret(sealed))).resolves.toBe('-----BEGIN RSA PRIVATE KEY-----');
  await expect(withEnv(envWithKey('key-two'), () => decryptSecret(sealed))).rejects.toThrow();
});

it('hashes passwords with a salt and verifies them', async () => {
  const [a, b] = await Promise.all([hashPassword('hunter22'), hashPassword('hunter22')]);
  expect(a).not.toBe(b);
  expect(await verifyPassword('hunter22', a)).toBe(true);
  expect(await verifyPassword('hunter23', a)).toBe(false);
});
