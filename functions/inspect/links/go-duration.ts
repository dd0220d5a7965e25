/**
 * A duration as Go's time.Duration prints it (`209.914666ms`, `1.5s`, `2m3.25s`): Mailgun's link
 * results carry `time_elapsed` in that form (contract §1), and clients may parse it back.
 */
export function goDuration(ms: number): string {
  const trim = (n: number, digits: number) => n.toFixed(digits).replace(/\.?0+$/, '');
  if (ms <= 0) return '0s';
  if (ms < 1) return `${trim(ms * 1000, 3)}µs`;
  if (ms < 1000) return `${trim(ms, 6)}ms`;
  const totalSeconds = ms / 1000;
  if (totalSeconds < 60) return `${trim(totalSeconds, 9)}s`;
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds - minutes * 60;
  if (minutes < 60) return `${minutes}m${trim(seconds, 9)}s`;
  return `${Math.floor(minutes / 60)}h${minutes % 60}m${trim(seconds, 9)}s`;
}
