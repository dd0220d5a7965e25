import { constants, generateKeyPairSync, privateEncrypt, randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';

/** A certificate and its key, both PEM, with the validity the certificate states. */
export interface IssuedCertificate {
  certificatePem: string;
  privateKeyPem: string;
  serial: string;
  notBefore: Date;
  notAfter: Date;
}

/**
 * Local mode's stand-in for the public CAs behind ACM: one root per data dir, so a user (or a
 * test) trusts `ca.pem` once and every certificate local mode issues (tracking hosts, the SMTP
 * listeners) verifies against it.
 */
export interface LocalCa {
  /** The root certificate to trust, PEM. */
  certificatePem: string;
  /** Where the root is saved (undefined when local mode keeps no data dir). */
  certificatePath?: string;
  issue(hostnames: readonly string[], validityDays: number, now?: Date): IssuedCertificate;
}

const ROOT_VALIDITY_YEARS = 10;

// Key generation in node:crypto is native; forge's own is pure JavaScript and takes seconds.
function rsaKeyPem(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
}

export function serialHex(): string {
  // Unique enough that no two issued certificates share one, positive (top bit clear), and with a
  // first byte that is not zero: forge writes the hex as it is, and DER's INTEGER must be minimal,
  // so a leading zero byte before one under 0x80 is refused by OpenSSL ("illegal padding").
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f || 0x01;
  return bytes.toString('hex');
}

/** DER of the DigestInfo that precedes a SHA-256 digest in an RSASSA-PKCS1-v1_5 signature (RFC 8017, 9.2). */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/**
 * Signs with node:crypto what forge built. forge's own RSA is pure JavaScript, and on Node 21 and
 * later (which define `navigator`) it takes its browser arithmetic: under jest's vm a signature
 * then takes seconds, and every local start signs three certificates.
 */
export function signCertificate(cert: forge.pki.Certificate, signerKeyPem: string): void {
  const signer = {
    sign: (md: forge.md.MessageDigest) =>
      privateEncrypt({ key: signerKeyPem, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([SHA256_DIGEST_INFO, Buffer.from(md.digest().getBytes(), 'binary')])).toString('binary'),
  };
  cert.sign(signer as unknown as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
}

function publicKeyOf(privateKey: forge.pki.rsa.PrivateKey): forge.pki.rsa.PublicKey {
  return forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
}

function makeRoot(): { certificatePem: string; privateKeyPem: string } {
  const privateKeyPem = rsaKeyPem();
  const key = forge.pki.privateKeyFromPem(privateKeyPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKeyOf(key);
  cert.serialNumber = serialHex();
  const now = new Date();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + ROOT_VALIDITY_YEARS * 365 * 86_400_000);
  const subject = [
    { name: 'commonName', value: 'mailplane local CA' },
    { name: 'organizationName', value: 'mailplane local mode' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  signCertificate(cert, privateKeyPem);
  return { certificatePem: forge.pki.certificateToPem(cert), privateKeyPem };
}

function ipAddress(name: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || name.includes(':');
}

function issueWith(root: { certificatePem: string; privateKeyPem: string }, hostnames: readonly string[], validityDays: number, now: Date): IssuedCertificate {
  if (hostnames.length === 0) throw new Error('A certificate needs at least one host name');
  const rootCert = forge.pki.certificateFromPem(root.certificatePem);
  const privateKeyPem = rsaKeyPem();
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKeyOf(forge.pki.privateKeyFromPem(privateKeyPem));
  cert.serialNumber = serialHex();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + validityDays * 86_400_000);
  cert.setSubject([{ name: 'commonName', value: hostnames[0]! }]);
  cert.setIssuer(rootCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: hostnames.map((name) => (ipAddress(name) ? { type: 7, ip: name } : { type: 2, value: name })) },
    { name: 'authorityKeyIdentifier', keyIdentifier: rootCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  signCertificate(cert, root.privateKeyPem);
  const certificatePem = forge.pki.certificateToPem(cert);
  const parsed = new X509Certificate(certificatePem);
  return { certificatePem, privateKeyPem, serial: parsed.serialNumber, notBefore: new Date(parsed.validFrom), notAfter: new Date(parsed.validTo) };
}

/**
 * The data dir's CA (`<dataDir>/ca/ca.pem` and its key, owner-only), made on first start; without
 * a data dir, a fresh one for this process.
 */
export function localCa(dataDir?: string | null): LocalCa {
  let root: { certificatePem: string; privateKeyPem: string };
  let certificatePath: string | undefined;
  if (dataDir) {
    const dir = join(dataDir, 'ca');
    certificatePath = join(dir, 'ca.pem');
    const keyPath = join(dir, 'ca-key.pem');
    if (existsSync(certificatePath) && existsSync(keyPath)) {
      root = { certificatePem: readFileSync(certificatePath, 'utf8'), privateKeyPem: readFileSync(keyPath, 'utf8') };
    } else {
      root = makeRoot();
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(keyPath, root.privateKeyPem, { mode: 0o600 });
      writeFileSync(certificatePath, root.certificatePem);
    }
  } else {
    root = makeRoot();
  }
  return {
    certificatePem: root.certificatePem,
    certificatePath,
    issue: (hostnames, validityDays, now = new Date()) => issueWith(root, hostnames, validityDays, now),
  };
}
