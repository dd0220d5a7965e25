import { BadRequest } from '../platform/errors';

/** Per-recipient values for batch sending: `{"a@x.com": {"first": "Ann"}}`. */
export type RecipientVariables = Record<string, Record<string, unknown>>;

export function parseRecipientVariables(raw: unknown): RecipientVariables | undefined {
  const text = Array.isArray(raw) ? raw.at(-1) : raw;
  if (text === undefined || text === '') return undefined;
  let parsed: unknown;
  try {
    parsed = typeof text === 'string' ? JSON.parse(text) : text;
  } catch {
    throw new BadRequest("'recipient-variables' parameter is not a valid JSON");
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new BadRequest("'recipient-variables' must be a JSON object keyed by recipient address");
  const out: RecipientVariables = {};
  for (const [address, values] of Object.entries(parsed as Record<string, unknown>)) {
    out[address.toLowerCase()] = values && typeof values === 'object' && !Array.isArray(values) ? (values as Record<string, unknown>) : {};
  }
  return out;
}

/** Replaces `%recipient.name%` with the recipient's value; an unknown name becomes empty, as in Mailgun. */
export function substitute(text: string, values: Record<string, unknown>): string {
  return text.replace(/%recipient\.([A-Za-z0-9_.-]+)%/g, (_, name: string) => {
    const value = values[name];
    return value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}
