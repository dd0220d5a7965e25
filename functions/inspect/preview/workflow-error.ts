/** What a Catch hands the next state: `{Error, Cause}`, Cause being a Lambda error's JSON, or plain text (a timeout). */
export interface CaughtError {
  Error?: string;
  Cause?: string;
}

/** The message of a caught error, for the record a user reads: its first line (Playwright appends the browser's log). */
export function caughtMessage(error: CaughtError | undefined): string {
  if (!error) return 'unknown error';
  let text = error.Cause || error.Error || 'unknown error';
  try {
    const parsed = JSON.parse(error.Cause ?? '') as { errorMessage?: string };
    if (parsed.errorMessage) text = parsed.errorMessage;
  } catch {
    // Not JSON: plain text.
  }
  return text.split('\n')[0]!.trim();
}
