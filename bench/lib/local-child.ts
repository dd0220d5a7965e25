/**
 * Local mode in a child process, so that its stand-ins (dynalite, s3rver, the SQS and SES
 * stand-ins) spend their CPU outside the process a benchmark measures. The parent gets the US
 * region's handler environment (endpoints on 127.0.0.1) and the stand-ins' credentials, and runs
 * the handlers itself against them.
 *
 * The send queue's consumer is paused: the child serves the stand-ins and runs no handler work.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { startLocal, useStandInCredentials, type LocalPlatform } from '../../lib/local/platform';

type FromChild = { ready: true; env: Record<string, string | undefined> } | { error: string };

export interface LocalChild {
  /** The US region's environment, as its handlers see it. */
  env: Readonly<Record<string, string | undefined>>;
  pid: number;
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
const CLOSE_TIMEOUT_MS = 15_000;

/** Starts local mode (in memory, ephemeral ports on 127.0.0.1) in a child process of this one. */
export function startLocalChild(adminKey: string): Promise<LocalChild> {
  // The child runs this very TypeScript file: with this process's tsx loader under `npm run bench`,
  // or with tsx's when the parent is not tsx (the bench smoke test under jest).
  const execArgv = process.execArgv.some((arg) => arg.includes('tsx')) ? process.execArgv : [...process.execArgv, '--import', 'tsx'];
  const child: ChildProcess = fork(__filename, ['--serve', adminKey], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`local mode did not start in the child process within ${START_TIMEOUT_MS / 1000} s: ${stderr.trim()}`));
    }, START_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`local-mode child exited with ${code} before it was ready: ${stderr.trim()}`));
    });
    child.once('message', (message: FromChild) => {
      clearTimeout(timer);
      if ('error' in message) {
        child.kill('SIGKILL');
        return reject(new Error(`local mode failed in the child process: ${message.error}`));
      }
      // What startLocal sets in the child: this process's SDK clients talk to the same stand-ins.
      useStandInCredentials();
      resolve({
        env: Object.freeze(message.env),
        pid: child.pid!,
        close: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const kill = setTimeout(() => child.kill('SIGKILL'), CLOSE_TIMEOUT_MS);
          child.send('close');
          await exited;
          clearTimeout(kill);
        },
      });
    });
  });
}

async function serve(adminKey: string): Promise<void> {
  let platform: LocalPlatform | undefined;
  const stop = async () => {
    await platform?.close();
    process.exit(0);
  };
  // The parent going away (normally or not) ends the child too.
  process.on('disconnect', () => void stop());
  process.on('message', (message) => {
    if (message === 'close') void stop();
  });
  try {
    platform = await startLocal({ port: 0, dataDir: null, bootstrapApiKey: adminKey });
    platform.us.sqs.pause('send');
    process.send!({ ready: true, env: { ...platform.us.env } } satisfies FromChild);
  } catch (error) {
    process.send!({ error: (error as Error).stack ?? String(error) } satisfies FromChild);
  }
}

if (require.main === module && process.argv[2] === '--serve') void serve(process.argv[3]!);
