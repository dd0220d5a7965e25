import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Identity {
  name: string;
  dkimOrigin: 'EXTERNAL' | 'AWS_SES';
  selector?: string;
  tokens: string[];
  mailFromDomain?: string;
}

/**
 * The SES v2 API as far as the platform uses it, spoken over HTTP so the handlers keep their real
 * SDK client (pointed here by SES_ENDPOINT). Identities count as verified: SES checks DNS on its
 * own, and the platform's verification does its own DNS checks anyway. Sending comes with the
 * sending pipeline.
 */
export class SesStandIn {
  private readonly identities = new Map<string, Identity>();
  private server?: Server;

  constructor(private readonly stateFile?: string) {
    if (stateFile && existsSync(stateFile)) {
      for (const identity of JSON.parse(readFileSync(stateFile, 'utf8')) as Identity[]) this.identities.set(identity.name, identity);
    }
  }

  async listen(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  identity(name: string): Identity | undefined {
    return this.identities.get(name);
  }

  private persist(): void {
    if (this.stateFile) writeFileSync(this.stateFile, JSON.stringify([...this.identities.values()]));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const reply = (status: number, payload: unknown, errorType?: string) => {
      res.writeHead(status, { 'content-type': 'application/json', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
      res.end(JSON.stringify(payload));
    };
    const match = /^\/v2\/email\/identities(?:\/([^/]+))?(\/dkim\/signing|\/mail-from)?$/.exec(path);
    if (!match) return reply(404, { message: `Unsupported SES operation ${req.method} ${path}` }, 'NotFoundException');
    const name = match[1] ? decodeURIComponent(match[1]) : undefined;
    const sub = match[2];

    if (req.method === 'POST' && !name) {
      const identityName = String(body['EmailIdentity'] ?? '');
      if (this.identities.has(identityName)) return reply(400, { message: `Email identity ${identityName} already exists.` }, 'AlreadyExistsException');
      const signing = body['DkimSigningAttributes'] as { DomainSigningSelector?: string } | undefined;
      const identity: Identity = {
        name: identityName,
        dkimOrigin: signing ? 'EXTERNAL' : 'AWS_SES',
        selector: signing?.DomainSigningSelector,
        tokens: signing ? [] : newTokens(),
      };
      this.identities.set(identityName, identity);
      this.persist();
      return reply(200, { IdentityType: 'DOMAIN', VerifiedForSendingStatus: true, DkimAttributes: dkimAttributes(identity) });
    }
    const identity = name ? this.identities.get(name) : undefined;
    if (!identity) return reply(404, { message: `Email identity ${name ?? ''} does not exist.` }, 'NotFoundException');

    if (req.method === 'GET' && !sub) {
      return reply(200, {
        IdentityType: 'DOMAIN',
        VerifiedForSendingStatus: true,
        DkimAttributes: dkimAttributes(identity),
        MailFromAttributes: identity.mailFromDomain
          ? { MailFromDomain: identity.mailFromDomain, MailFromDomainStatus: 'SUCCESS', BehaviorOnMxFailure: 'USE_DEFAULT_VALUE' }
          : undefined,
      });
    }
    if (req.method === 'DELETE' && !sub) {
      this.identities.delete(identity.name);
      this.persist();
      return reply(200, {});
    }
    if (req.method === 'PUT' && sub === '/dkim/signing') {
      const external = body['SigningAttributesOrigin'] === 'EXTERNAL';
      identity.dkimOrigin = external ? 'EXTERNAL' : 'AWS_SES';
      identity.selector = external ? (body['SigningAttributes'] as { DomainSigningSelector?: string }).DomainSigningSelector : undefined;
      identity.tokens = external ? [] : newTokens();
      this.persist();
      return reply(200, { DkimStatus: 'SUCCESS', DkimTokens: identity.tokens });
    }
    if (req.method === 'PUT' && sub === '/mail-from') {
      identity.mailFromDomain = body['MailFromDomain'] as string | undefined;
      this.persist();
      return reply(200, {});
    }
    return reply(404, { message: `Unsupported SES operation ${req.method} ${path}` }, 'NotFoundException');
  }
}

function newTokens(): string[] {
  return [0, 1, 2].map(() => randomBytes(16).toString('hex'));
}

function dkimAttributes(identity: Identity) {
  return { SigningEnabled: true, Status: 'SUCCESS', Tokens: identity.tokens, SigningAttributesOrigin: identity.dkimOrigin };
}
