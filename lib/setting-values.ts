import type { z } from 'zod/v3';
import type { Setting } from '../functions/platform/env';

// What a setting accepts and defaults to, read from its zod schema: the configuration docs and
// local mode's start-up check say the same thing because both read it here.

interface Check {
  kind: string;
  value?: number;
  inclusive?: boolean;
  message?: string;
}

interface Def {
  typeName: string;
  innerType?: z.ZodTypeAny;
  schema?: z.ZodTypeAny;
  defaultValue?: () => unknown;
  values?: readonly string[];
  checks?: Check[];
}

const defOf = (schema: z.ZodTypeAny) => schema._def as Def;

/** The schema under optional, default and effects (transforms, refinements). */
function core(schema: z.ZodTypeAny): z.ZodTypeAny {
  const def = defOf(schema);
  const inner = def.innerType ?? def.schema;
  return inner ? core(inner) : schema;
}

const code = (value: string | number) => `\`${value}\``;

function either(values: readonly string[]): string {
  const quoted = values.map(code);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

function numberRange(checks: Check[]): string {
  const kind = checks.some((c) => c.kind === 'int') ? 'an integer' : 'a number';
  const min = checks.find((c) => c.kind === 'min');
  const max = checks.find((c) => c.kind === 'max');
  if (min?.inclusive && max?.inclusive) return `${kind} from ${min.value} to ${max.value}`;
  const bounds = [min && (min.inclusive ? `${min.value} or more` : `above ${min.value}`), max && (max.inclusive ? `at most ${max.value}` : `below ${max.value}`)].filter(Boolean);
  return bounds.length ? `${kind}, ${bounds.join(', ')}` : kind;
}

function stringForm(checks: Check[]): string {
  for (const check of checks) {
    if (check.kind === 'url') return 'a URL';
    if (check.kind === 'email') return 'an email address';
    if (check.kind === 'regex' && check.message) return check.message;
  }
  return 'text';
}

/** What a setting accepts, as a phrase: "`authorized` or `any`", "an integer from 1 to 3600", "a URL". */
export function acceptedValues(entry: Pick<Setting, 'schema' | 'accepts'>): string {
  if (entry.accepts) return entry.accepts;
  const def = defOf(core(entry.schema));
  if (def.typeName === 'ZodEnum') return either(def.values ?? []);
  if (def.typeName === 'ZodNumber') return numberRange(def.checks ?? []);
  if (def.typeName === 'ZodString') return stringForm(def.checks ?? []);
  return 'text';
}

/** The schema's own default, as the environment would spell it; undefined when it has none. */
export function defaultValue(schema: z.ZodTypeAny): string | undefined {
  const def = defOf(schema);
  if (def.typeName === 'ZodDefault') return String(def.defaultValue!());
  const inner = def.innerType ?? def.schema;
  return inner ? defaultValue(inner) : undefined;
}
