/**
 * The console's only way out: the public API, exactly as an SDK calls it (Basic auth with user
 * `api`), so everything the console does is something a user could script.
 */

/** An API reply that was not 2xx, with the platform's message (Mailgun's `{"message": ...}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export interface Credentials {
  api: string;
  secret: string;
  /** A subaccount's id: every call then acts on its behalf (`X-Mailgun-On-Behalf-Of`). */
  onBehalfOf?: string;
}

export type Query = Record<string, string | number | boolean | undefined>;
/** A form body: repeated fields as arrays, files as Blobs (sent as multipart). */
export type Form = Record<string, string | number | boolean | string[] | Blob | undefined>;

export interface RequestOptions {
  query?: Query;
  form?: Form;
  json?: unknown;
  accept?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

function authorization(secret: string): string {
  // btoa takes Latin-1 only; API keys are ASCII.
  return `Basic ${btoa(`api:${secret}`)}`;
}

/** The headers every call carries: the key, and the subaccount acted on when one is chosen. */
function baseHeaders(credentials: Credentials): Record<string, string> {
  return { authorization: authorization(credentials.secret), ...(credentials.onBehalfOf ? { 'x-mailgun-on-behalf-of': credentials.onBehalfOf } : {}) };
}

function encodeForm(form: Form): URLSearchParams | FormData {
  const hasFile = Object.values(form).some((v) => v instanceof Blob);
  const body = hasFile ? new FormData() : new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    if (value === undefined) continue;
    if (value instanceof Blob) (body as FormData).append(name, value, value instanceof File ? value.name : name);
    else for (const one of Array.isArray(value) ? value : [value]) body.append(name, String(one));
  }
  return body;
}

export function urlOf(api: string, path: string, query?: Query): string {
  const url = new URL(path, api);
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
  return url.toString();
}

/** The message of an error reply, whichever of Mailgun's shapes it has. */
function messageOf(status: number, body: unknown, text: string): string {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    for (const key of ['message', 'Message', 'Description', 'Reason', 'error']) if (typeof b[key] === 'string' && b[key]) return b[key] as string;
  }
  return text.trim() || `HTTP ${status}`;
}

async function send(credentials: Credentials, method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers, ...baseHeaders(credentials), accept: options.accept ?? 'application/json' };
  let body: BodyInit | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form) body = encodeForm(options.form);
  const res = await fetch(urlOf(credentials.api, path, options.query), { method, headers, body, signal: options.signal, credentials: 'omit', cache: 'no-store' });
  if (!res.ok) {
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    throw new ApiError(res.status, messageOf(res.status, parsed, text), parsed);
  }
  return res;
}

async function fetchJson<T>(credentials: Credentials, method: string, path: string, options?: RequestOptions): Promise<T> {
  const res = await send(credentials, method, path, options);
  const text = await res.text();
  return (text ? JSON.parse(text) : {}) as T;
}

/**
 * Replies asked for ahead of the page that shows them: a page's loader runs when its link is
 * clicked, while its chunk loads, and the page's own call for the same thing (same account, method,
 * URL and body) takes the reply instead of asking again. Each is taken once; the next navigation
 * drops, and cancels, what is left.
 */
const ahead = new Map<string, { reply: Promise<unknown>; cancel: AbortController }>();
let collecting = false;

/** What makes two calls the same read; none for a form (an action, never asked ahead). */
function readKey(credentials: Credentials, method: string, path: string, options: RequestOptions): string | undefined {
  if (options.form) return undefined;
  return JSON.stringify([credentials.secret, credentials.onBehalfOf ?? '', method, urlOf(credentials.api, path, options.query), options.json ?? null, options.accept ?? '', options.headers ?? {}]);
}

/** The reply, or an AbortError once `signal` aborts (the caller stopped waiting; others may not have). */
function until<T>(reply: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return reply;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    reply.then(resolve, reject);
  });
}

/**
 * Runs `loader` (a page's reads on opening, made through `call`) so that its calls are kept for
 * the page to take, after dropping what the last navigation asked for and nobody took.
 */
export function callAhead(loader: () => unknown): void {
  for (const { cancel } of ahead.values()) cancel.abort();
  ahead.clear();
  collecting = true;
  try {
    loader();
  } catch {
    // Whatever failed here fails again, in place, when the page asks for itself.
  } finally {
    collecting = false;
  }
}

/** A JSON reply (taken from the replies asked ahead when one is there for this very call). */
export function call<T>(credentials: Credentials, method: string, path: string, options: RequestOptions = {}): Promise<T> {
  let key: string | undefined;
  try {
    key = readKey(credentials, method, path, options);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  const early = key === undefined ? undefined : ahead.get(key);
  if (early) {
    ahead.delete(key!);
    return until(early.reply as Promise<T>, options.signal);
  }
  if (!collecting || key === undefined) return fetchJson<T>(credentials, method, path, options);
  const cancel = new AbortController();
  const reply = fetchJson<T>(credentials, method, path, { ...options, signal: cancel.signal });
  // A reply nobody takes (its page asked for something else) is dropped, its failure unseen.
  reply.catch(() => undefined);
  ahead.set(key, { reply, cancel });
  return reply;
}

/** A reply as bytes (raw messages, CSV exports, attachments). */
export async function download(credentials: Credentials, path: string, options?: RequestOptions): Promise<Blob> {
  return (await send(credentials, 'GET', path, options)).blob();
}

/** Path segments are user data: always encoded. */
export function p(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  return strings.reduce((path, part, i) => path + part + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '');
}

/**
 * A multipart upload whose progress is reported as it is sent (fetch cannot report upload
 * progress; XMLHttpRequest can). Resolves with the JSON reply.
 */
export function uploadWithProgress<T>(credentials: Credentials, path: string, body: FormData, onProgress: (sent: number, total: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', urlOf(credentials.api, path));
    for (const [name, value] of Object.entries(baseHeaders(credentials))) xhr.setRequestHeader(name, value);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : 0);
    xhr.onerror = () => reject(new Error('The upload failed: the API could not be reached'));
    xhr.onload = () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {
        parsed = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(parsed as T);
      else reject(new ApiError(xhr.status, messageOf(xhr.status, parsed, xhr.responseText), parsed));
    };
    xhr.send(body);
  });
}
