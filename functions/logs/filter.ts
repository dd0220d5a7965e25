import { z } from 'zod/v3';
import type { RecordedEvent } from '../events/event-store';
import { parseDateInput } from '../platform/dates';
import { BadRequest } from '../platform/errors';
import { oneOfValues, schema } from '../platform/http/params';

/**
 * The logs filter (contract §7.1, OpenAPI FilterPredicateGroup): `{"AND": [predicate, ...]}`, every
 * predicate must hold. A predicate names an attribute, a comparator and one or more values: `=`
 * and `contains` hold when any value matches, `!=` and `not contains` when none does, `<` and `>`
 * compare numbers (size, status codes) or instants (delivered_at). Text compares case-insensitively.
 */
const ATTRIBUTES = [
  'id',
  'domain',
  'ip',
  'ip_pool',
  'recipient_domain',
  'recipient_provider',
  'country',
  'bot',
  'device',
  'subaccount',
  'event',
  'attachment_filename',
  'from',
  'message_id',
  'subject',
  'mailing_list_address',
  'to',
  'size',
  'recipient',
  'tag',
  'severity',
  'user_variables',
  'delivered_at',
  'delivery_status_code',
  'delivery_status_bounce_type',
  'delivery_status_message',
  'is_routed',
  'i_classification_rule_id',
  'i_classification_group_id',
  'recipients',
] as const;
type Attribute = (typeof ATTRIBUTES)[number];

const COMPARATORS = ['=', '!=', 'contains', 'not contains', '<', '>'] as const;
type Comparator = (typeof COMPARATORS)[number];

/** The spec's rules on which comparators an attribute takes. */
const ORDERED: readonly Attribute[] = ['size', 'delivered_at', 'delivery_status_code'];
const ONLY_ORDERED: readonly Attribute[] = ['size', 'delivered_at'];
const ONLY_CONTAINS: readonly Attribute[] = ['recipients'];

export const filterInput = schema(() => z.object({
  AND: z
    .array(
      z.object({
        attribute: oneOfValues(ATTRIBUTES),
        comparator: z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), oneOfValues(COMPARATORS)),
        values: z
          .array(z.object({ label: z.string().optional(), value: z.union([z.string(), z.number(), z.boolean()]).transform(String) }))
          .min(1, { message: 'must name at least one value' }),
      }),
    )
    .min(1, { message: 'must hold at least one condition' }),
}));
export type FilterInput = z.infer<ReturnType<typeof filterInput>>;

type Predicate = { attribute: Attribute; comparator: Comparator; values: string[]; bound?: number };

/** Checks each predicate against the spec's comparator rules and parses ordered bounds once. */
export function compileFilter(filter: FilterInput | undefined): Predicate[] {
  return (filter?.AND ?? []).map(({ attribute, comparator, values }, i) => {
    const where = `filter.AND.${i}`;
    const ordered = comparator === '<' || comparator === '>';
    if (ONLY_ORDERED.includes(attribute) && !ordered) throw new BadRequest(`Invalid parameter '${where}': ${attribute} takes only the < and > comparators`);
    if (ONLY_CONTAINS.includes(attribute) && comparator !== 'contains' && comparator !== 'not contains') {
      throw new BadRequest(`Invalid parameter '${where}': ${attribute} takes only the contains and not contains comparators`);
    }
    if (ordered && !ORDERED.includes(attribute)) throw new BadRequest(`Invalid parameter '${where}': ${attribute} cannot be compared with ${comparator}`);
    const texts = values.map((v) => v.value);
    // Message ids are stored without their angle brackets; users often copy them with.
    const plain = (v: string) => (attribute === 'message_id' ? v.trim().replace(/^<|>$/g, '') : v).toLowerCase();
    if (!ordered) return { attribute, comparator, values: texts.map(plain) };
    if (texts.length !== 1) throw new BadRequest(`Invalid parameter '${where}': ${comparator} takes exactly one value`);
    const bound = attribute === 'delivered_at' ? parseDateInput(texts[0]!)?.getTime() : Number(texts[0]);
    if (bound === undefined || !Number.isFinite(bound)) {
      throw new BadRequest(`Invalid parameter '${where}': ${attribute} needs ${attribute === 'delivered_at' ? 'an RFC 1123 date' : 'a number'}`);
    }
    return { attribute, comparator, values: texts, bound };
  });
}

const asText = (value: unknown): string[] => (value === undefined || value === null || value === '' ? [] : [String(value)]);
const get = (data: Record<string, unknown>, ...path: string[]): unknown =>
  path.reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), data);

/** What an attribute reads from a recorded event; several values where the event holds a list. */
function valuesOf(attribute: Attribute, { accountId, domain, data }: RecordedEvent): Array<string | number> {
  switch (attribute) {
    case 'id':
      return [data.id];
    case 'domain':
      return [domain];
    case 'subaccount':
      return [accountId];
    case 'event':
      return [data.event];
    case 'ip':
      return asText(get(data, 'envelope', 'sending-ip'));
    case 'ip_pool':
      return asText(get(data, 'envelope', 'i-ip-pool-id'));
    case 'recipient_domain':
      return asText(data['recipient-domain']);
    case 'recipient_provider':
      return asText(data['recipient-provider']);
    case 'country':
      return asText(get(data, 'geolocation', 'country'));
    case 'bot':
      return asText(get(data, 'client-info', 'bot'));
    case 'device':
      return asText(get(data, 'client-info', 'device-type'));
    case 'attachment_filename':
      return ((get(data, 'message', 'attachments') as Array<{ filename?: string }> | undefined) ?? []).flatMap((a) => asText(a.filename));
    case 'from':
      return asText(get(data, 'message', 'headers', 'from'));
    case 'to':
      return asText(get(data, 'message', 'headers', 'to'));
    case 'subject':
      return asText(get(data, 'message', 'headers', 'subject'));
    case 'message_id':
      return asText(get(data, 'message', 'headers', 'message-id'));
    case 'mailing_list_address':
      return asText(get(data, 'mailing-list', 'address'));
    case 'size': {
      const size = get(data, 'message', 'size');
      return typeof size === 'number' ? [size] : [];
    }
    case 'recipient':
      return asText(data['recipient']);
    case 'recipients':
      return ((get(data, 'message', 'recipients') as string[] | undefined) ?? []).map(String);
    case 'tag':
      return ((data['tags'] as string[] | undefined) ?? []).map(String);
    case 'severity':
      return asText(data['severity']);
    case 'user_variables': {
      // "stored as a flat JSON string and filters search against keys or values"
      const variables = (data['user-variables'] ?? {}) as Record<string, unknown>;
      return Object.entries(variables).flatMap(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]);
    }
    case 'delivered_at':
      return data.event === 'delivered' ? [data.timestamp * 1000] : [];
    case 'delivery_status_code': {
      const code = get(data, 'delivery-status', 'code');
      return typeof code === 'number' ? [code] : asText(code);
    }
    case 'delivery_status_bounce_type':
      return asText(get(data, 'delivery-status', 'bounce-type'));
    case 'delivery_status_message':
      return asText(get(data, 'delivery-status', 'message'));
    case 'is_routed':
      return asText(get(data, 'flags', 'is-routed') ?? false);
    case 'i_classification_rule_id':
      return asText(get(data, 'i-classification', 'rule-id'));
    case 'i_classification_group_id':
      return asText(get(data, 'i-classification', 'group-id'));
  }
}

function holds(predicate: Predicate, event: RecordedEvent): boolean {
  const found = valuesOf(predicate.attribute, event);
  if (predicate.bound !== undefined) {
    const numbers = found.map(Number).filter(Number.isFinite);
    return numbers.some((n) => (predicate.comparator === '<' ? n < predicate.bound! : n > predicate.bound!));
  }
  const texts = found.map((v) => String(v).toLowerCase());
  const equal = () => texts.some((t) => predicate.values.includes(t));
  const contain = () => texts.some((t) => predicate.values.some((v) => t.includes(v)));
  switch (predicate.comparator) {
    case '=':
      return equal();
    case '!=':
      return !equal();
    case 'contains':
      return contain();
    default:
      return !contain();
  }
}

export function matchesFilter(predicates: Predicate[], event: RecordedEvent): boolean {
  return predicates.every((predicate) => holds(predicate, event));
}
