/**
 * Local mode in a process of its own, so that a test can kill it as abruptly as a power cut
 * (SIGKILL) and start it again on the same data dir. Run as a script, it starts local mode and
 * prints the US URL on a line of its own once it answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { startLocal } from '../../lib/local/platform';
import { PATIENCE_MS } from './eventually';

export interface LocalProcess {
  url: string;
  process: ChildProcess;
  /** Ends it the hard way: no shutdown, nothing flushed beyond what is already on disk. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export function startLocalProcess(options: { dataDir: string; adminKey: string; sendWorkerTimeoutSeconds: number }): Promise<LocalProcess> {
  // Node itself with tsx's loader, not tsx's CLI: the CLI runs the script in a second process,
  // which a SIGKILL of the first would leave running.
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, options.dataDir, options.adminKey, String(options.sendWorkerTimeoutSeconds)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ended = (signal: NodeJS.Signals) => async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`local mode did not start: ${stderr}`));
    }, PATIENCE_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`local mode exited with ${code} before it was ready: ${stderr}`));
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /^ready (\S+)$/m.exec(stdout)?.[1];
      if (!url) return;
      clearTimeout(timer);
      resolve({ url, process: child, kill: ended('SIGKILL'), stop: ended('SIGTERM') });
    });
  });
}

async function serve([dataDir, adminKey, timeout]: string[]): Promise<void> {
  const platform = await startLocal({ port: 0, dataDir: dataDir!, bootstrapApiKey: adminKey!, sendWorkerTimeoutSeconds: Number(timeout) });
  process.on('SIGTERM', () => void platform.close().then(() => process.exit(0)));
  process.stdout.write(`ready ${platform.us.url}\n`);
}

if (require.main === module) {
  serve(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
