import writeFileAtomic from 'write-file-atomic';

/**
 * Writes a stand-in's state file whole, through a temporary file renamed over it, so that local mode
 * killed mid-write (Ctrl-C twice, a crash) restarts from the previous state, never from a torn file.
 * No fsync: the promise is to survive the process, not the machine losing power, and the queues
 * write on every message. Owner-only, since the state holds messages and keys.
 */
export function writeStateFile(file: string, data: string | Buffer): void {
  writeFileAtomic.sync(file, data, { fsync: false, mode: 0o600 });
}
