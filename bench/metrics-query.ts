/**
 * Metrics query time against the number of events counted: `POST /v1/analytics/metrics`, 30 days at
 * day resolution, through the whole local host (gateway, authorizer, pipeline, counters on dynalite),
 * over a window whose counters represent 1,000 events and over one whose counters represent
 * 1,000,000, side by side. The counters are written directly (addToCounters, as countEvents would
 * after summing), not by recording events: seeding a million events would measure ingest, not this.
 *
 * The bigger window also has more distinct values (domains, tags, recipient domains), as real
 * traffic would, so grouped questions touch more counters there. Target: the time-series query
 * within 1.5x between the two (cost follows buckets, not events). The grouped-by-tag query is
 * reported beside it, no target: it grows with the number of tags, not with events.
 *
 *   npx tsx bench/metrics-query.ts     (or as part of `npm run bench`)
 *
 * Requests are sequential (latency, not throughput), alternating between the two windows in rounds.
 */
import { request } from 'node:http';
import { RESOLUTIONS, bucketStart, type Resolution } from '../functions/analytics/buckets';
import { addToCounters, type CounterDelta } from '../functions/analytics/counter-store';
import type { Counts } from '../functions/analytics/counts';
import type { Attribute } from '../functions/analytics/slices';
import { documentClient } from '../functions/platform/aws-clients';
import { perUnit, watchCalls, describeCalls } from './lib/aws-calls';
import { BENCH_KEY, withLocalMode } from './lib/local';
import { basicAuth } from './lib/principal';
import { fixed, median, note, percentile, print, ratio, table, type TargetCheck } from './lib/report';

const DAY_MS = 86_400_000;
const DAYS = 30;
const WARMUP = 30;
const ROUNDS = 6;
const PER_ROUND = 50;
const MAX_RATIO = 1.5;

interface Scenario {
  label: string;
  events: number;
  domains: number;
  tags: number;
  recipientDomains: number;
  /** First day of the window (UTC midnight). */
  from: number;
}

/** What a share of events adds up to: Mailgun-like proportions of outcomes and engagement. */
function countsFor(events: number): Counts {
  const part = (share: number) => Math.round(events * share);
  return {
    accepted_outgoing: events,
    processed: events,
    delivered_smtp: part(0.96),
    delivered_first_attempt: part(0.93),
    delivered_subsequent: part(0.03),
    sent: part(0.99),
    permanent_failed: part(0.03),
    hard_bounces: part(0.02),
    soft_bounces: part(0.01),
    temporary_failed: part(0.04),
    opened: part(0.35),
    unique_opened: part(0.25),
    clicked: part(0.06),
    unique_clicked: part(0.04),
    complained: part(0.001),
    unsubscribed: part(0.003),
  };
}

/**
 * The counters of a window: per day (and per hour for the account and domain kinds, per month for
 * all), for the account, each domain, tag, domain+tag, recipient domain and domain+recipient domain,
 * with the events split evenly across values.
 */
function seedDeltas(accountId: string, s: Scenario): CounterDelta[] {
  const deltas = new Map<string, CounterDelta>();
  const add = (kind: Attribute[], values: string[], resolution: Resolution, at: number, counts: Counts) => {
    const bucket = bucketStart(at, resolution);
    const key = `${kind.join('+')}|${values.join('#')}|${resolution}|${bucket}`;
    const d = deltas.get(key) ?? { accountId, kind, values, resolution, bucket, counts: {} };
    for (const [name, n] of Object.entries(counts) as Array<[keyof Counts, number]>) d.counts[name] = (d.counts[name] ?? 0) + n;
    deltas.set(key, d);
  };
  const domains = Array.from({ length: s.domains }, (_, i) => `d${i}.bench.example`);
  const tags = Array.from({ length: s.tags }, (_, i) => `tag-${i}`);
  const rdomains = Array.from({ length: s.recipientDomains }, (_, i) => `r${i}.example`);
  const perHour = s.events / (DAYS * 24);
  for (let h = 0; h < DAYS * 24; h++) {
    const at = s.from + h * 3_600_000;
    const resolutions = RESOLUTIONS;
    for (const resolution of resolutions) add([], [], resolution, at, countsFor(perHour));
    for (const d of domains) {
      for (const resolution of resolutions) add(['domain'], [d], resolution, at, countsFor(perHour / s.domains));
      for (const t of tags) for (const resolution of ['day', 'month'] as const) add(['domain', 'tag'], [d, t], resolution, at, countsFor(perHour / s.domains / s.tags));
      for (const r of rdomains) for (const resolution of ['day', 'month'] as const) add(['domain', 'rdomain'], [d, r], resolution, at, countsFor(perHour / s.domains / s.recipientDomains));
    }
    for (const t of tags) for (const resolution of ['day', 'month'] as const) add(['tag'], [t], resolution, at, countsFor(perHour / s.tags));
    for (const r of rdomains) for (const resolution of ['day', 'month'] as const) add(['rdomain'], [r], resolution, at, countsFor(perHour / s.recipientDomains));
  }
  return [...deltas.values()];
}

function post(url: string, body: string): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { authorization: basicAuth(BENCH_KEY), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const rfc = (ms: number) => new Date(ms).toUTCString();

export interface MetricsQueryVariant {
  label: string;
  events: number;
  counterItems: number;
  p50Ms: number;
  p95Ms: number;
  calls: Record<string, number>;
}

export interface MetricsQueryResult {
  series: { small: MetricsQueryVariant; large: MetricsQueryVariant; ratio: number };
  byTag: { small: MetricsQueryVariant; large: MetricsQueryVariant; ratio: number };
  requestsPerVariant: number;
  seedSeconds: number;
  checks: TargetCheck[];
}

export async function metricsQuery(): Promise<MetricsQueryResult> {
  return withLocalMode({ bench: 'metrics query' }, async ({ us, principal }) => {
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const scenarios: Scenario[] = [
      { label: '1,000 events', events: 1_000, domains: 1, tags: 3, recipientDomains: 10, from: today - 90 * DAY_MS },
      { label: '1,000,000 events', events: 1_000_000, domains: 5, tags: 10, recipientDomains: 50, from: today - 30 * DAY_MS },
    ];
    const seedStarted = performance.now();
    const items: number[] = [];
    for (const s of scenarios) {
      const deltas = seedDeltas(principal.accountId, s);
      items.push(deltas.length);
      note(`metrics query: seeding ${deltas.length} counters for ${s.label}`);
      for (let i = 0; i < deltas.length; i += 500) await us.run(() => addToCounters(deltas.slice(i, i + 500), `seed-${s.label}-${i}`));
    }
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const url = `${us.url}/v1/analytics/metrics`;
    const seriesBody = (s: Scenario) =>
      JSON.stringify({
        start: rfc(s.from),
        end: rfc(s.from + DAYS * DAY_MS),
        resolution: 'day',
        dimensions: ['time'],
        metrics: ['accepted_count', 'delivered_count', 'opened_count', 'clicked_count', 'hard_bounces_count', 'delivered_rate', 'opened_rate', 'clicked_rate', 'bounce_rate'],
        filter: { AND: [{ attribute: 'domain', comparator: '=', values: [{ label: 'd0.bench.example', value: 'd0.bench.example' }] }] },
        include_aggregates: true,
      });
    const byTagBody = (s: Scenario) =>
      JSON.stringify({ start: rfc(s.from), end: rfc(s.from + DAYS * DAY_MS), resolution: 'day', dimensions: ['tag'], metrics: ['delivered_count', 'opened_rate'], include_aggregates: true });

    // Correctness first: the series sums to the events seeded for d0.
    for (const s of scenarios) {
      const reply = await post(url, seriesBody(s));
      if (reply.status !== 200) throw new Error(`metrics query failed: ${reply.status} ${reply.text}`);
      const body = JSON.parse(reply.text) as { items: unknown[]; aggregates: { metrics: { accepted_count: number } } };
      const expected = s.events / s.domains;
      if (body.items.length !== DAYS || Math.abs(body.aggregates.metrics.accepted_count - expected) > expected * 0.01) {
        throw new Error(`${s.label}: ${body.items.length} days, accepted ${body.aggregates.metrics.accepted_count}; expected ${DAYS} days, about ${expected}`);
      }
    }

    const doc = await us.run(async () => documentClient());
    const callsOf = async (body: string) => {
      const { calls } = await watchCalls([doc], () => post(url, body));
      return perUnit(calls, 1);
    };

    const measure = async (bodyOf: (s: Scenario) => string) => {
      const times: number[][] = scenarios.map(() => []);
      for (const s of scenarios) for (let i = 0; i < WARMUP; i++) await post(url, bodyOf(s));
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < scenarios.length; k++) {
          const index = (k + round) % scenarios.length;
          for (let i = 0; i < PER_ROUND; i++) times[index]!.push((await post(url, bodyOf(scenarios[index]!))).ms);
        }
      }
      // One at a time: a watcher sees every call made while it is installed.
      const variants: MetricsQueryVariant[] = [];
      for (const [i, s] of scenarios.entries()) {
        variants.push({ label: s.label, events: s.events, counterItems: items[i]!, p50Ms: median(times[i]!), p95Ms: percentile(times[i]!, 95), calls: await callsOf(bodyOf(s)) });
      }
      return { small: variants[0]!, large: variants[1]!, ratio: variants[1]!.p50Ms / variants[0]!.p50Ms };
    };
    note(`metrics query: time series, ${ROUNDS} rounds of ${PER_ROUND} requests per window`);
    const series = await measure(seriesBody);
    note(`metrics query: grouped by tag, ${ROUNDS} rounds of ${PER_ROUND} requests per window`);
    const byTag = await measure(byTagBody);
    const pass = series.ratio <= MAX_RATIO && series.ratio >= 1 / MAX_RATIO;
    return {
      series,
      byTag,
      requestsPerVariant: ROUNDS * PER_ROUND,
      seedSeconds,
      checks: [{ benchmark: 'metrics query', subject: '30 days at day resolution: 1M events vs 1k (p50)', figure: ratio(series.ratio), target: `<= ${MAX_RATIO}x`, pass }],
    };
  });
}

export function printMetricsQuery(r: MetricsQueryResult): void {
  print(`== Metrics query: POST /v1/analytics/metrics, 30 days at day resolution, counters for 1,000 vs 1,000,000 events ==`);
  print(`Through the local host (gateway, authorizer, pipeline, dynalite in this process); ${r.requestsPerVariant} sequential requests per window after ${WARMUP} warm-up, alternating in ${ROUNDS} rounds. Seeding took ${fixed(r.seedSeconds, 1)} s.`);
  print();
  const row = (what: string, v: MetricsQueryVariant) => [what, v.label, String(v.counterItems), `${fixed(v.p50Ms, 2)} ms`, `${fixed(v.p95Ms, 2)} ms`, describeCalls(v.calls)];
  print(
    table([
      ['query', 'window', 'counters seeded', 'p50', 'p95', 'DynamoDB calls per request'],
      row('time series, domain filter', r.series.small),
      row('time series, domain filter', r.series.large),
      ['', 'ratio 1M / 1k', '', ratio(r.series.ratio), '', `target: <= ${MAX_RATIO}x`],
      row('by tag (report only)', r.byTag.small),
      row('by tag (report only)', r.byTag.large),
      ['', 'ratio 1M / 1k', '', ratio(r.byTag.ratio), '', '3 vs 10 tags: grows with tags, not events'],
    ]),
  );
  print();
}

if (require.main === module) {
  metricsQuery()
    .then(printMetricsQuery)
    .catch((error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    });
}
