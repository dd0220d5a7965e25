import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { request, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity, connect } from 'node:tls';
import { localCa, serialHex } from '../../../lib/local/local-ca';

/** A TLS handshake to `servername` that trusts only `ca`; resolves with the error, if any. */
async function handshake(port: number, servername: string, ca: string): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', servername, ca, checkServerIdentity: (host, cert) => checkServerIdentity(host, cert) });
    socket.once('secureConnect', () => {
      socket.end();
      resolve(undefined);
    });
    socket.once('error', resolve);
  });
}

describe('local CA', () => {
  it('issues certificates a client trusting only the root accepts for their host names, and no others', async () => {
    const ca = localCa(null);
    const issued = ca.issue(['track.mg.example.com'], 90);
    expect(issued.notAfter.getTime() - issued.notBefore.getTime()).toBeGreaterThan(89 * 86_400_000);
    const server = createServer({ cert: issued.certificatePem, key: issued.privateKeyPem }, (_req, res) => res.end('ok'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      expect(await handshake(port, 'track.mg.example.com', ca.certificatePem)).toBeUndefined();
      expect((await handshake(port, 'other.example.com', ca.certificatePem))?.message).toMatch(/altnames/i);
      expect((await handshake(port, 'track.mg.example.com', localCa(null).certificatePem))?.message).toMatch(/certificate/i);
      const body = await new Promise<string>((resolve, reject) => {
        request({ host: '127.0.0.1', port, servername: 'track.mg.example.com', headers: { host: 'track.mg.example.com' }, ca: ca.certificatePem }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(text));
        }).on('error', reject).end();
      });
      expect(body).toBe('ok');
    } finally {
      server.close();
    }
  });

  it('keeps one root per data dir across starts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ca-'));
    try {
      const first = localCa(dir);
      const second = localCa(dir);
      expect(second.certificatePem).toBe(first.certificatePem);
      expect(first.certificatePath).toBe(join(dir, 'ca', 'ca.pem'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

it('draws serials that DER encodes minimally and as positive, so that every certificate parses', () => {
  // One serial in 256 used to start with a zero byte before one under 0x80, which OpenSSL refuses.
  for (let i = 0; i < 10_000; i++) {
    const first = parseInt(serialHex().slice(0, 2), 16);
    expect(first >= 0x01 && first <= 0x7f).toBe(true);
  }
});
