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

/**
 * How the receiver answers a POST to a path: a status and body, sent at once or, with `after`,
 * once that promise settles (a receiver exactly as slow as the test needs).
 */
export type Answer = (post: ReceivedPost, countOnPath: number) => { status: number; body?: string; after?: Promise<unknown> };

/** A webhook receiver on loopback, as a customer would run one: it records every POST. */
export class WebhookReceiver {
  readonly posts: ReceivedPost[] = [];
  private readonly answers = new Map<string, Answer>();
  /** Posts whose reply waits on `after`, while the sender still holds the connection open. */
  private readonly holding = new Set<ReceivedPost>();
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
        const reply = () => void res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? '');
        if (!answer.after) {
          reply();
          return;
        }
        this.holding.add(post);
        res.on('close', () => this.holding.delete(post));
        void answer.after.then(() => {
          if (this.holding.delete(post)) reply();
        });
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

  /** The posts to a path still waiting for their reply, their connections open. */
  held(path: string): ReceivedPost[] {
    return [...this.holding].filter((post) => post.path === path);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
