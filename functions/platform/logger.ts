/**
 * One structured JSON logger per process. Secrets never reach it: the pipeline logs the method,
 * route and status, never headers or bodies.
 *
 * It writes the lines Powertools' Logger writes in its default format, for the calls the platform
 * makes (a message and flat attributes): `level`, `message`, `timestamp` (UTC), `service`,
 * `sampling_rate`, `xray_trace_id`, then the attributes, empty ones left out; an Error anywhere as
 * `name`, `location`, `message`, `stack` (and `cause`), without loading Powertools at every
 * Lambda's cold start. The level is POWERTOOLS_LOG_LEVEL (or LOG_LEVEL), INFO by default,
 * never below Lambda's advanced logging controls (AWS_LAMBDA_LOG_LEVEL); SILENT silences. INFO
 * goes to stdout, WARN and ERROR to stderr.
 */

type Attributes = Record<string, unknown>;

const THRESHOLDS: Readonly<Record<string, number>> = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, FATAL: 24, SILENT: 28 };

const thresholdOf = (name: string | undefined): number | undefined => (name ? THRESHOLDS[name.trim().toUpperCase()] : undefined);

function threshold(): number {
  const configured = thresholdOf(process.env['POWERTOOLS_LOG_LEVEL']) ?? thresholdOf(process.env['LOG_LEVEL']) ?? THRESHOLDS['INFO']!;
  return Math.max(configured, thresholdOf(process.env['AWS_LAMBDA_LOG_LEVEL']) ?? 0);
}

/** `file:line` of the first stack frame that names one. */
function locationOf(stack: string | undefined): string {
  for (const line of stack?.split('\n') ?? []) {
    const match = /\(([^()]*?):(\d+?):(\d+?)\)\\?$/.exec(line);
    if (match) return `${match[1]}:${Number(match[2])}`;
  }
  return '';
}

function errorJson(error: Error): Attributes {
  const { name, message, stack, cause } = error;
  const out: Attributes = { name, location: locationOf(stack), message, stack, cause: cause instanceof Error ? errorJson(cause) : cause };
  for (const [key, value] of Object.entries(error)) if (!['name', 'message', 'stack', 'cause'].includes(key)) out[key] = value;
  return out;
}

/** Errors as objects, bigints as strings, a circular reference left out. */
function replacer(): (this: unknown, key: string, value: unknown) => unknown {
  const ancestors: unknown[] = [];
  return function (this: unknown, _key: string, value: unknown): unknown {
    const replaced = value instanceof Error ? errorJson(value) : value;
    if (typeof replaced === 'bigint') return replaced.toString();
    if (typeof replaced === 'object' && replaced !== null) {
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(replaced)) return undefined;
      ancestors.push(replaced);
    }
    return replaced;
  };
}

/** The trace id (`Root=`) of the X-Ray header Lambda sets for each invocation. */
function traceId(): string | undefined {
  return /Root=([^;]+)/.exec(process.env['_X_AMZN_TRACE_ID'] ?? '')?.[1];
}

function write(level: 'INFO' | 'WARN' | 'ERROR', message: string, attributes: Attributes = {}): void {
  if (THRESHOLDS[level]! < threshold()) return;
  const entry: Attributes = {
    level,
    message,
    timestamp: new Date().toISOString(),
    service: 'mailplane',
    sampling_rate: 0,
    xray_trace_id: traceId(),
    ...attributes,
  };
  for (const [key, value] of Object.entries(entry)) if (value === undefined || value === null || value === '') delete entry[key];
  const line = `${JSON.stringify(entry, replacer())}\n`;
  (level === 'INFO' ? process.stdout : process.stderr).write(line);
}

export const logger = {
  info: (message: string, attributes?: Attributes): void => write('INFO', message, attributes),
  warn: (message: string, attributes?: Attributes): void => write('WARN', message, attributes),
  error: (message: string, attributes?: Attributes): void => write('ERROR', message, attributes),
};
