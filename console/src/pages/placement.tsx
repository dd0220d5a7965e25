import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, p } from '../api';
import { can, credentials, useAppState } from '../session';
import { listDomains } from '../ui/domain-picker';
import { useAction, useLoad } from '../ui/load';
import { fetchProviders, fetchResults, fetchSeedLists } from './placement.load';
import { ConfirmButton, CopyButton, ErrorText, fieldsOf, formatDate, Head, Loading, Notice, Page } from '../ui/widgets';
import { SeedMailboxes } from './seed-mailboxes';
import { RefreshHead } from '../ui/form-parts';
import './optimize.css';

interface SeedList {
  Id: string;
  name: string;
  target_email: string;
  mailing_list: string;
  Seeds: Array<{ email: string; provider: string }>;
  created_at: string;
  provider_filter: string[] | null;
}

interface ProviderStats {
  delivered: number;
  missing: number;
  pending: number;
  spam: number;
  inbox: number;
  total: number;
  categories: Record<string, number>;
}

interface SeedResult {
  email: string;
  provider: string;
  destination: string;
  state: string;
  tags: string[];
  spf: string;
  dkim: string;
  dmarc: string;
  extensions: { category: string; ms_spam?: { bcl: number | null; scl: number | null; forefront_report: { category: string } } };
  received_at: string | null;
  last_error?: string;
}

export interface PlacementResult {
  Id: string;
  subject: string;
  sender: string;
  seedlist_name: string;
  created_at: string;
  status: string;
  seed_results: SeedResult[];
  delivery_stats: Record<string, ProviderStats>;
  spamassassin: { is_spam: boolean; score: number; required: number; rules: Array<{ name: string; points: number; short_description?: string; description?: string }> } | null;
  deadline?: string;
}

interface Sharing {
  enabled: boolean;
  url: string;
  expires_at: string;
}

/** The matrix's columns, in the order a reader scans them. */
export const PLACEMENT_COLUMNS = ['inbox', 'spam', 'missing', 'pending', 'total'] as const;

function verdict(value: string) {
  const kind = value === 'pass' ? 'ok' : value === 'fail' ? 'bad' : 'wait';
  return <span class={`badge ${kind}`}>{value || 'unknown'}</span>;
}

function SharingPanel({ id }: { id: string }) {
  const { region } = useAppState();
  const sharing = useLoad((signal) => call<{ sharing: Sharing }>(credentials(), 'GET', p`/v4/inbox/sharing/${id}`, { signal }), [id, region]);
  const act = useAction();
  const set = (enabled: boolean) => void act.run(async () => (await call(credentials(), 'PUT', p`/v4/inbox/sharing/${id}`, { query: { enabled } }), sharing.reload()));
  const s = sharing.data?.sharing;
  return (
    <section aria-labelledby="share-h">
      <h3 id="share-h">Sharing</h3>
      <ErrorText error={sharing.error ?? act.error} />
      {s ? (
        s.enabled ? (
          <p class="secret-line">
            <span>Anyone with this link sees where each copy landed (not the message body), until {formatDate(s.expires_at)}:</span>
            {/^https?:\/\//.test(s.url) ? (
              <a href={s.url} target="_blank" rel="noopener noreferrer" class="break">
                {s.url}
              </a>
            ) : (
              <code class="break">{s.url}</code>
            )}
            <CopyButton value={s.url} label="Copy the share link" />
            {can('write') ? (
              <button type="button" class="small danger" onClick={() => set(false)} disabled={act.busy}>
                Stop sharing
              </button>
            ) : null}
          </p>
        ) : (
          <p>
            Not shared.{' '}
            {can('write') ? (
              <button type="button" class="small" onClick={() => set(true)} disabled={act.busy}>
                Share this result
              </button>
            ) : null}
          </p>
        )
      ) : null}
    </section>
  );
}

/** One result: the provider-by-placement matrix, each seed with its authentication results, the content score and sharing. */
function ResultView({ id, onClose, onDeleted, onChanged }: { id: string; onClose: () => void; onDeleted: () => void; onChanged: () => void }) {
  const { region } = useAppState();
  const result = useLoad(
    async (signal) => {
      try {
        return await call<{ result: PlacementResult }>(credentials(), 'GET', p`/v4/inbox/results/${id}`, { signal });
      } catch (error) {
        // The result is made when the test's copy reaches the target address: until then, 404.
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      }
    },
    [id, region],
  );
  const act = useAction();
  const r = result.data?.result;
  const done = r?.status === 'complete';
  useEffect(() => {
    if (result.loading || done || result.error) return;
    const timer = setTimeout(result.reload, 2000);
    return () => clearTimeout(timer);
  }, [result.data, result.loading]);
  // The list of results follows as this one is made and completes.
  useEffect(() => {
    if (r) onChanged();
  }, [r?.status]);
  const providers = r
    ? Object.keys(r.delivery_stats)
        .filter((k) => k !== 'all')
        .sort()
    : [];
  const tabs = r ? [...new Set(Object.keys(r.delivery_stats['all']?.categories ?? {}))].sort() : [];
  return (
    <section class="panel" aria-labelledby="result-h">
      <div class="page-head">
        <h2 id="result-h" class="break">
          Result: {r?.subject ?? id}
        </h2>
        <div class="actions">
          {r && can('write') ? (
            <ConfirmButton class="danger" label="Delete result" question="Delete this result?" confirmLabel="Delete" onConfirm={() => void act.run(async () => (await call(credentials(), 'DELETE', p`/v4/inbox/results/${id}`), onDeleted()))} />
          ) : null}
          <button type="button" onClick={onClose}>
            Close result
          </button>
        </div>
      </div>
      <ErrorText error={result.error ?? act.error} />
      {result.loading && !result.data && !r ? <Loading what="the result" /> : null}
      {!result.loading && !r && !result.error ? <p role="status">Waiting for the test's copy to reach the seed list's target address…</p> : null}
      {r ? (
        <>
          <p>
            From <span class="break">{r.sender}</span>, seed list <span class="break">{r.seedlist_name}</span>, {formatDate(r.created_at)}. <span class={`badge ${done ? 'ok' : 'wait'}`}>{r.status}</span>
            {!done && r.deadline ? <span class="muted"> Seeds not found by {formatDate(r.deadline)} count as missing.</span> : null}
          </p>
          <div class="table-wrap" tabIndex={0}>
            <table aria-label="Placement by provider">
              <caption class="muted">Where the copies landed, per provider (seed mailboxes)</caption>
              <Head columns={['Provider', 'Inbox', 'Spam', 'Missing', 'Pending', 'Total', ...tabs.map((t) => `Tab: ${t}`)]} />
              <tbody>
                {[...providers, 'all'].map((name) => {
                  const s = r.delivery_stats[name]!;
                  return (
                    <tr key={name}>
                      <th scope="row">{name === 'all' ? 'All providers' : name}</th>
                      {PLACEMENT_COLUMNS.map((c) => (
                        <td key={c}>{String(s[c])}</td>
                      ))}
                      {tabs.map((t) => (
                        <td key={t}>{String(s.categories[t] ?? 0)}</td>
                      ))}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <h3>Seeds</h3>
          <div class="table-wrap" tabIndex={0}>
            <table>
              <caption class="muted">Each seed's copy: folder, Gmail tab, and the receiver's SPF, DKIM and DMARC verdicts</caption>
              <Head columns={['Seed', 'Provider', 'State', 'Placement', 'Folder', 'Tab', 'SPF', 'DKIM', 'DMARC', 'Microsoft SCL / BCL']} />
              <tbody>
                {r.seed_results.map((s) => (
                  <tr key={s.email}>
                    <th scope="row" class="break">
                      {s.email}
                    </th>
                    <td>{s.provider}</td>
                    <td>
                      {s.state}
                      {s.last_error ? <div class="muted break">{s.last_error}</div> : null}
                    </td>
                    <td>{s.destination || '–'}</td>
                    <td>{s.tags.join(', ') || '–'}</td>
                    <td>{s.extensions.category || '–'}</td>
                    <td>{verdict(s.spf)}</td>
                    <td>{verdict(s.dkim)}</td>
                    <td>{verdict(s.dmarc)}</td>
                    <td>{s.extensions.ms_spam ? `${s.extensions.ms_spam.scl ?? 'unknown'} / ${s.extensions.ms_spam.bcl ?? 'unknown'}` : '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>Content score</h3>
          {r.spamassassin ? (
            <>
              <p>
                Score <strong>{String(r.spamassassin.score)}</strong> (spam at {String(r.spamassassin.required)}): {r.spamassassin.is_spam ? <span class="badge bad">spam</span> : <span class="badge ok">not spam</span>}
              </p>
              <div class="table-wrap" tabIndex={0}>
                <table>
                  <caption class="muted">Rules that matched</caption>
                  <Head columns={['Rule', 'Points', 'Description']} />
                  <tbody>
                    {r.spamassassin.rules.map((rule) => (
                      <tr key={rule.name}>
                        <td class="mono">{rule.name}</td>
                        <td>{String(rule.points)}</td>
                        <td class="break">{rule.short_description ?? rule.description ?? ''}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          ) : (
            <p>
              <span class="badge wait">unknown</span> No content scorer (SpamAssassin's spamd or rspamd) is configured, or it failed: there is no score, rather than a made-up one.
            </p>
          )}
          <SharingPanel id={r.Id} />
        </>
      ) : null}
    </section>
  );
}

/** `onStarted` learns the result's id, and whether the test made a seed list of its own (none was chosen). */
function RunTest({ lists, onStarted }: { lists: SeedList[]; onStarted: (id: string, newList: boolean) => void }) {
  const { region } = useAppState();
  const domains = useLoad((signal) => listDomains(signal), [region]);
  const act = useAction();
  const firstDomain = domains.data?.find((d) => d.state === 'active')?.name ?? domains.data?.[0]?.name;
  // A sender on the first active domain, until the user types another.
  const [from, setFrom] = useState<string>();
  return (
    <form
      class="panel stack"
      aria-labelledby="run-h"
      onSubmit={(e) => {
        e.preventDefault();
        const f = fieldsOf(e.currentTarget);
        void act.run(async () => {
          const reply = await call<{ result_id: string }>(credentials(), 'POST', '/v4/inbox/tests', { json: { from: f['from'], subject: f['subject'], html: f['html'], ...(f['seed_list'] ? { seed_list: f['seed_list'] } : {}) } });
          onStarted(reply.result_id, !f['seed_list']);
        });
      }}
    >
      <h2 id="run-h">Run a test</h2>
      <p class="muted">One copy goes to each seed mailbox through the platform's own pipeline; the result follows as the seeds are read back.</p>
      <label for="pt-from">From</label>
      <input id="pt-from" name="from" required autocomplete="off" value={from ?? (firstDomain ? `test@${firstDomain}` : '')} onInput={(e) => setFrom((e.target as HTMLInputElement).value)} />
      <label for="pt-subject">Subject</label>
      <input id="pt-subject" name="subject" required autocomplete="off" />
      <label for="pt-html">HTML body</label>
      <textarea id="pt-html" name="html" rows={4} required defaultValue="<p>Hello %recipient.first_name%</p>" />
      <label for="pt-list">Seed list</label>
      <select id="pt-list" name="seed_list">
        <option value="">A new list with every seed</option>
        {lists.map((l) => (
          <option key={l.target_email} value={l.target_email}>
            {l.name}
          </option>
        ))}
      </select>
      <div>
        <button type="submit" class="primary" disabled={act.busy}>
          Run test
        </button>
      </div>
      <ErrorText error={act.error} />
    </form>
  );
}

function SeedLists({ lists, onChange, configured }: { lists: SeedList[]; onChange: () => void; configured: boolean }) {
  const act = useAction();
  return (
    <section aria-labelledby="lists-h">
      <h2 id="lists-h">Seed lists</h2>
      {can('write') && configured ? (
        <form
          class="panel row"
          aria-label="Create a seed list"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const f = fieldsOf(form);
            void act.run(async () => {
              await call(credentials(), 'POST', '/v4/inbox/seedlists', { form: { name: f['name'], ...(f['provider_filter'] ? { provider_filter: f['provider_filter'] } : {}) } });
              form.reset();
              onChange();
            });
          }}
        >
          <div class="field grow">
            <label for="sl-name">Seed list name</label>
            <input id="sl-name" name="name" required autocomplete="off" />
          </div>
          <div class="field">
            <label for="sl-providers">Providers (comma-separated, empty for all)</label>
            <input id="sl-providers" name="provider_filter" autocomplete="off" />
          </div>
          <button type="submit" class="primary" disabled={act.busy}>
            Create seed list
          </button>
        </form>
      ) : null}
      <ErrorText error={act.error} />
      <div class="table-wrap" tabIndex={0}>
        <table>
          <caption class="muted">Seed lists: send to the mailing list yourself, or run a test with one</caption>
          <Head columns={['Name', 'Seeds', 'Mailing list', 'Created', can('write') && 'Actions']} />
          <tbody>
            {lists.map((l) => (
              <tr key={l.target_email}>
                <th scope="row" class="break">
                  {l.name}
                </th>
                <td>{l.Seeds.map((s) => `${s.email} (${s.provider})`).join(', ')}</td>
                <td class="break mono">
                  {l.mailing_list} <CopyButton value={l.mailing_list} label={`Copy the mailing list of ${l.name}`} />
                </td>
                <td>{formatDate(l.created_at)}</td>
                {can('write') ? (
                  <td class="actions">
                    <ConfirmButton
                      class="small danger"
                      label={`Delete seed list ${l.name}`}
                      question={`Delete the seed list ${l.name}? Its results stay.`}
                      confirmLabel="Delete"
                      onConfirm={() => void act.run(async () => (await call(credentials(), 'DELETE', p`/v4/inbox/seedlists/${l.target_email}`), onChange()))}
                    />
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
        {!lists.length ? <p class="muted">No seed lists.</p> : null}
      </div>
    </section>
  );
}

export default function Placement() {
  const { region } = useAppState();
  const providers = useLoad((signal) => fetchProviders<{ items: Array<{ domain: string }> }>(signal), [region]);
  const lists = useLoad((signal) => fetchSeedLists<{ items: SeedList[] }>(signal), [region]);
  const results = useLoad((signal) => fetchResults<{ items: PlacementResult[]; total: number }>(signal), [region]);
  const [open, setOpen] = useState<string>();
  const configured = Boolean(providers.data?.items.length);
  return (
    <Page title="Inbox placement">
      <ErrorText error={providers.error ?? lists.error ?? results.error} />
      {providers.loading && !providers.data ? <Loading what="seed mailboxes" /> : null}
      {providers.data ? (
        configured ? (
          <p class="muted">Seed mailboxes at: {providers.data.items.map((i) => i.domain).join(', ')}.</p>
        ) : (
          <Notice>
            No seed mailboxes are configured, so placement cannot be measured: tests and seed lists are refused. The operator adds mailboxes they own at each provider (under Seed mailboxes below, with the primary account's admin key, or POST /v1/inbox/seed-mailboxes; see docs/optimization.md, "Inbox placement").
          </Notice>
        )
      ) : null}
      {open ? <ResultView id={open} onClose={() => setOpen(undefined)} onDeleted={() => (setOpen(undefined), results.reload())} onChanged={results.reload} /> : null}
      {configured && can('send') && lists.data ? <RunTest lists={lists.data.items} onStarted={(id, newList) => (setOpen(id), results.reload(), newList && lists.reload())} /> : null}
      <section aria-labelledby="results-h">
        <RefreshHead id="results-h" title="Results" refreshLabel="Refresh results" onRefresh={results.reload} loading={results.loading} />
        {results.data ? (
          <div class="table-wrap" tabIndex={0}>
            <table>
              <caption class="muted">Placement tests, newest first</caption>
              <Head columns={['Subject', 'From', 'Started', 'Status', 'Inbox', 'Spam', 'Missing', 'Result']} />
              <tbody>
                {results.data.items.map((r) => (
                  <tr key={r.Id} class={open === r.Id ? 'selected' : ''}>
                    <td class="break">{r.subject}</td>
                    <td class="break">{r.sender}</td>
                    <td>{formatDate(r.created_at)}</td>
                    <td>{r.status}</td>
                    <td>{String(r.delivery_stats['all']?.inbox ?? 0)}</td>
                    <td>{String(r.delivery_stats['all']?.spam ?? 0)}</td>
                    <td>{String(r.delivery_stats['all']?.missing ?? 0)}</td>
                    <td>
                      <button type="button" class="small" aria-label={`Open result ${r.subject}`} onClick={() => setOpen(r.Id)}>
                        Open
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {!results.data.items.length ? <p class="muted">No placement tests yet.</p> : null}
          </div>
        ) : null}
      </section>
      {lists.data ? <SeedLists lists={lists.data.items} onChange={lists.reload} configured={configured} /> : null}
      <SeedMailboxes onChange={providers.reload} />
    </Page>
  );
}
