import { connect as netConnect } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';

/**
 * A line-at-a-time SMTP client over implicit TLS: each command answered by its reply's last line.
 * `localAddress` (any of 127.0.0.0/8 on Linux) makes the session come from another client address.
 */
export async function smtpSession(options: { port: number; ca: string; host?: string; localAddress?: string }) {
  const host = options.host ?? '127.0.0.1';
  const tcp = netConnect({ host, port: options.port, localAddress: options.localAddress });
  const socket: TLSSocket = connect({ socket: tcp, host, ca: options.ca });
  let buffer = '';
  const waiting: Array<(line: string) => void> = [];
  let closed = false;
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let index: number;
    while ((index = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, index);
      buffer = buffer.slice(index + 2);
      if (line[3] !== '-') waiting.shift()?.(line);
    }
  });
  socket.on('close', () => {
    closed = true;
    // A command the server hung up on gets an empty reply rather than none.
    for (const resolve of waiting.splice(0)) resolve('');
  });
  socket.on('error', () => undefined);
  const reply = () => new Promise<string>((resolve) => waiting.push(resolve));
  const greeting = await reply();
  return {
    greeting,
    isClosed: () => closed,
    async send(line: string): Promise<string> {
      const answer = reply();
      socket.write(`${line}\r\n`);
      return answer;
    },
    end: () => socket.end(),
  };
}

/** AUTH PLAIN's argument. */
export const plainAuth = (login: string, password: string) => Buffer.from(`\u0000${login}\u0000${password}`).toString('base64');
