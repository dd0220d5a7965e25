import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { useAppState } from '../session';
import { Chart, daySeconds } from '../ui/chart';
import { useLoad } from '../ui/load';
import { fetchScores, fetchTotalScore } from './health.load';
import { ErrorText, Head, Loading, Notice, Page } from '../ui/widgets';
import './optimize.css';

const PARTS = [
  ['bounce_rate', 'Bounces', 30],
  ['complaint_rate', 'Complaints', 35],
  ['trap_rate', 'Spam traps', 15],
  ['full_mailbox_rate', 'Full mailboxes', 5],
  ['bad_failure_rate', 'Bad failures', 25],
] as const;

/** An impact in points off the score: −5, or 0 when it takes nothing. */
const impact = (points: number) => (points ? `−${points}` : '0');

type Rates = Record<(typeof PARTS)[number][0], number>;

interface Score {
  score: number;
  rates: Rates;
  counters: { delivered: number };
  window_days?: number;
  sources?: Record<string, string>;
}
interface Grouped {
  items: Array<Score & { group_key: string; account_id: string }>;
  total: number;
}

/** A reply, or why there is none: the API's 422 (too little mail for a score) is a state, not a failure. */
async function scoreOrReason<T>(load: () => Promise<T>): Promise<{ data?: T; reason?: string }> {
  try {
    return { data: await load() };
  } catch (error) {
    if (error instanceof ApiError && error.status === 422) return { reason: error.message };
    throw error;
  }
}

function Parts({ score }: { score: Score }) {
  return (
    <dl class="kpis" aria-label="Score and its parts">
      <div class="kpi">
        <dt class="muted">Score (of 100)</dt>
        <dd class="value">{String(score.score)}</dd>
      </div>
      {PARTS.map(([name, label, cap]) => (
        <div class="kpi" key={name}>
          <dt class="muted">
            {label} (−{cap} at most)
          </dt>
          <dd class="value">{impact(score.rates[name])}</dd>
        </div>
      ))}
      <div class="kpi">
        <dt class="muted">Delivered</dt>
        <dd class="value">{String(score.counters.delivered)}</dd>
      </div>
    </dl>
  );
}

export default function Health() {
  const { region } = useAppState();
  const total = useLoad((signal) => scoreOrReason(() => fetchTotalScore<Score>(signal)), [region]);
  const byDomain = useLoad((signal) => fetchScores<Grouped>('domain', { signal }), [region]);
  // The account's days, or one domain's (Mailgun's exact filter, term=domain:<name>).
  const [domain, setDomain] = useState('');
  const byDay = useLoad(
    (signal) => fetchScores<Grouped>('timestamp', { term: domain ? `domain:${domain}` : undefined, signal }),
    [region, domain],
  );
  const whose = domain || 'the account';
  // The days the API scored (a day with too little mail has none), oldest first.
  const scoredDays = byDay.data?.items ?? [];
  const x = scoredDays.map((item) => daySeconds(item.group_key));
  return (
    <Page title="Health score">
      <p class="muted">
        100 minus five impacts over the last 30 days, from the platform's own counters: bounces, complaints, suspected spam-trap hits, full mailboxes, and refusals for content or reputation. With too little mail there is no score, never a guessed
        one.
      </p>
      <ErrorText error={total.error} />
      {total.loading && !total.data ? <Loading what="the score" /> : null}
      {total.data?.reason ? <Notice>No score for the account: {total.data.reason}.</Notice> : null}
      {total.data?.data ? (
        <section aria-labelledby="total-h">
          <h2 id="total-h">Account</h2>
          <Parts score={total.data.data} />
          {total.data.data.sources ? (
            <details>
              <summary>Where each figure comes from</summary>
              <dl class="record">{Object.entries(total.data.data.sources).flatMap(([name, source]) => [<dt key={`${name}-t`}>{name}</dt>, <dd key={`${name}-d`}>{source}</dd>])}</dl>
            </details>
          ) : null}
        </section>
      ) : null}
      <section aria-labelledby="domains-h">
        <h2 id="domains-h">Per domain</h2>
        <ErrorText error={byDomain.error} />
        {byDomain.data ? (
          <div class="table-wrap" tabIndex={0}>
            <table>
              <caption class="muted">Domains with enough mail to score, lowest score first</caption>
              <Head columns={['Domain', 'Score', ...PARTS.map(([, label]) => label), 'Delivered']} />
              <tbody>
                {byDomain.data.items.map((item) => (
                  <tr key={item.group_key}>
                    <th scope="row" class="break">
                      {item.group_key}
                    </th>
                    <td>{String(item.score)}</td>
                    {PARTS.map(([name]) => (
                      <td key={name}>{impact(item.rates[name])}</td>
                    ))}
                    <td>{String(item.counters.delivered)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {!byDomain.data.items.length ? <p class="muted">No domain sent enough mail in 30 days to be scored.</p> : null}
          </div>
        ) : null}
      </section>
      <section aria-labelledby="days-h">
        <h2 id="days-h">Over time</h2>
        <div class="field">
          <label for="health-of">Score of</label>
          <select id="health-of" value={domain} onChange={(e) => setDomain((e.target as HTMLSelectElement).value)}>
            <option value="">The account</option>
            {(byDomain.data?.items ?? []).map((item) => (
              <option key={item.group_key} value={item.group_key}>
                {item.group_key}
              </option>
            ))}
          </select>
        </div>
        <ErrorText error={byDay.error} />
        {byDay.data && !byDay.data.items.length && !byDay.loading ? <Notice>No day of the last 30 had enough mail from {whose} to be scored.</Notice> : null}
        {byDay.data?.items.length ? (
          <Chart days
            title={`Score per day of ${whose} over the last 30 days (a day not listed had too little mail to be scored)`}
            x={x}
            series={[{ label: 'Score', values: scoredDays.map((item) => item.score) }, ...PARTS.map(([name, label]) => ({ label: `${label} impact`, values: scoredDays.map((item) => item.rates[name]) }))]}
          />
        ) : null}
      </section>
    </Page>
  );
}
