import { spawn } from 'node:child_process';

/**
 * Runs `script` in a fresh node process (`node -e script arg`) and parses what it writes to stdout
 * as JSON. Rejects when the process exits non-zero (killed after `timeoutMs` included) or writes
 * something else; `what` names it in the error.
 */
export function runNodeJson<T>(script: string, arg: string, options: { what: string; timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, arg], { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`${options.what} exited with ${code}: ${stderr.trim().slice(0, 1000)}`));
      try {
        resolve(JSON.parse(stdout) as T);
      } catch {
        reject(new Error(`unexpected output from ${options.what}: ${stdout.slice(0, 200)} ${stderr.slice(0, 500)}`));
      }
    });
  });
}
