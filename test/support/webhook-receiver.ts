import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedPost {
  path: string;
  /** POST for deliveries; alerts check a URL with a GET when it is saved. */
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body's exact bytes, as text (alerts sign them). */
  raw: string;
  contentType: string | undefined;
  body: {
    signature: { timestamp: string; token: string; signature: string };
    'event-data': Record<string, unknown> & { event: string; id: string };
  };
  at: number;
}

/** How the receiver answers a POST to a path: a status and body, optionally after a delay. */
export type Answer = (post: ReceivedPost, countOnPath: number) => { status: number; body?: string; delayMs?: number };

/** A webhook receiver on loopback, as a customer would run one: it records every POST. */
export class WebhookReceiver {
  readonly posts: ReceivedPost[] = [];
  private readonly answers = new Map<string, Answer>();
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const raw = Buffer.concat(chunks).toString('utf8');
        const post: ReceivedPost = { path, method: req.method ?? '', headers: req.headers, raw, contentType: req.headers['content-type'], body: JSON.parse(raw || 'null'), at: Date.now() };
        this.posts.push(post);
        const answer: ReturnType<Answer> = (this.answers.get(path) ?? (() => ({ status: 200, body: 'ok' })))(post, this.on(path).length);
        const reply = () => res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? '');
        if (answer.delayMs) setTimeout(reply, answer.delayMs);
        else reply();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  answer(path: string, answer: Answer): void {
    this.answers.set(path, answer);
  }

  on(path: string): ReceivedPost[] {
    return this.posts.filter((post) => post.path === path);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
