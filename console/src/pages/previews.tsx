import './reporting-inspection.css';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, call, download, p } from '../api';
import { can, credentials, useAppState } from '../session';
import { useAction, useLoad } from '../ui/load';
import { fetchCatalog, fetchPreviewAddress, fetchTests, PAGE } from './previews.load';
import { ConfirmButton, CopyButton, ErrorText, formatDate, Head, Loading, Options, Page, saveBlob } from '../ui/widgets';

interface CatalogClient {
  id: string;
  client: string;
  os: string;
  category: string;
  browser: string;
  rotate?: boolean;
  image_blocking?: boolean;
  default?: boolean;
  fidelity?: string;
}

interface TestSummary {
  id: string;
  date: number;
  subject: string;
}

interface TestInfo {
  subject: string;
  date: number;
  completed: string[];
  processing: string[];
  bounced: string[];
}

interface ClientResult {
  id: string;
  display_name: string;
  client: string;
  os: string;
  category: string;
  screenshots: Record<string, string>;
  thumbnail?: string;
  full_thumbnail?: string;
  status: string;
  status_details: { submitted: number | string; completed: number | string; attempts: number | string; bounce_code: string; bounce_message: string };
  fidelity?: string;
  applied?: string[];
}

interface Share {
  test_id: string;
  url_uuid: string;
  url: string;
  enabled: boolean;
  expires_at: string;
}

interface ExportJob {
  job_id: string;
  job_status: string;
  zip_url?: string;
  failed_clients?: string[];
  error?: { message: string };
}

const CATEGORIES = ['Web', 'Application', 'Mobile'];
const SHOT_NAMES: Record<string, string> = { default: 'Default', no_images: 'Images blocked', horizontal: 'Landscape', horizontal_no_images: 'Landscape, images blocked' };
const FIDELITY: Record<string, string> = {
  high: 'High fidelity',
  approximate: 'Approximate',
  experimental: 'Experimental',
  real: 'Real client',
};

/** Dark-mode clients are the catalog's `_dm` twins: chosen through "Dark mode", not one by one. */
const isDark = (c: CatalogClient) => /_dm$/.test(c.id) || /dark mode/i.test(c.os);
function darkTwin(id: string, catalog: Record<string, CatalogClient>): string | undefined {
  for (const candidate of [id.replace(/_lm$/, '_dm'), `${id}_dm`]) if (candidate !== id && catalog[candidate]) return candidate;
  return undefined;
}

/**
 * A screenshot, fetched with the web key (screenshot URLs need one, so an <img> cannot load them
 * itself) and shown from a blob: URL. While a screenshot is still rendering the API answers 425.
 */
function useScreenshot(url: string | undefined, version: string): { src?: string; error?: string } {
  const [state, setState] = useState<{ src?: string; error?: string }>({});
  useEffect(() => {
    if (!url) return;
    let alive = true;
    let objectUrl: string | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async (attempt: number) => {
      try {
        const blob = await download(credentials(), url, { accept: 'image/png' });
        if (!alive) return;
        objectUrl = URL.createObjectURL(blob);
        setState({ src: objectUrl });
      } catch (error) {
        if (!alive) return;
        if (error instanceof ApiError && error.status === 425 && attempt < 30) timer = setTimeout(() => void load(attempt + 1), 2000);
        else setState({ error: (error as Error).message });
      }
    };
    void load(0);
    return () => {
      alive = false;
      if (timer) clearTimeout(timer);
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [url, version]);
  return state;
}

function Screenshot({ url, version, alt, class: className }: { url?: string; version: string; alt: string; class?: string }) {
  const shot = useScreenshot(url, version);
  if (shot.error) return <p class="error">Screenshot unavailable: {shot.error}</p>;
  if (!shot.src) return <p class="muted shot-wait">{url ? 'Loading screenshot…' : 'No screenshot yet'}</p>;
  return <img class={className} src={shot.src} alt={alt} />;
}

function statusBadge(status: string) {
  const kind = status === 'Complete' ? 'ok' : status === 'Bounced' ? 'bad' : 'wait';
  return <span class={`badge ${kind}`}>{status}</span>;
}

/** One client's screenshots at full size, one variant at a time (default, images blocked, landscape). */
function LargeView({ result, subject, onClose }: { result: ClientResult; subject: string; onClose: () => void }) {
  const names = Object.keys(result.screenshots);
  const [name, setName] = useState(names[0] ?? 'default');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [result.id]);
  return (
    <section class="panel large-view" aria-labelledby="large-h">
      <div class="page-head">
        <h3 id="large-h" ref={heading} tabIndex={-1}>
          {result.display_name}
        </h3>
        <div class="actions">
          {names.length > 1 ? (
            <div class="field">
              <label for="shot-variant">Screenshot</label>
              <select id="shot-variant" value={name} onChange={(e) => setName((e.target as HTMLSelectElement).value)}>
                <Options values={names} label={(n) => SHOT_NAMES[n] ?? n} />
              </select>
            </div>
          ) : null}
          <button type="button" onClick={onClose}>
            Close large view
          </button>
        </div>
      </div>
      <p>
        {FIDELITY[result.fidelity ?? ''] ?? result.fidelity ?? ''} · {statusBadge(result.status)}
      </p>
      {result.applied?.length ? (
        <details>
          <summary>What the client's transforms changed ({result.applied.length})</summary>
          <ul>
            {result.applied.map((a, i) => (
              <li key={i} class="break">
                {a}
              </li>
            ))}
          </ul>
        </details>
      ) : (
        <p class="muted">The client's transforms changed nothing.</p>
      )}
      <div class="large-shot" tabIndex={0} role="region" aria-label={`${SHOT_NAMES[name] ?? name} screenshot, scrollable`}>
        <Screenshot url={result.screenshots[name]} version={String(result.status_details.completed)} alt={`${SHOT_NAMES[name] ?? name} screenshot of “${subject}” in ${result.display_name}`} />
      </div>
    </section>
  );
}

function ClientCard({ result, subject, onOpen, onReprocess, busy }: { result: ClientResult; subject: string; onOpen: () => void; onReprocess?: () => void; busy: boolean }) {
  return (
    <li class="client-card">
      <h4>{result.display_name}</h4>
      <div class="thumb">
        {result.status === 'Complete' ? (
          <Screenshot url={result.thumbnail} version={String(result.status_details.completed)} alt={`Thumbnail of “${subject}” in ${result.display_name}`} />
        ) : result.status === 'Bounced' ? (
          <p class="error">Failed: {result.status_details.bounce_message || result.status_details.bounce_code}</p>
        ) : (
          <p class="muted shot-wait">Rendering…</p>
        )}
      </div>
      <p>
        {statusBadge(result.status)} <span class="badge">{FIDELITY[result.fidelity ?? ''] ?? result.fidelity ?? 'fidelity unknown'}</span>
      </p>
      {result.applied?.length ? (
        <details>
          <summary>Transforms ({result.applied.length})</summary>
          <ul>
            {result.applied.map((a, i) => (
              <li key={i} class="break">
                {a}
              </li>
            ))}
          </ul>
        </details>
      ) : (
        <p class="muted">No transforms</p>
      )}
      <div class="actions">
        <button type="button" class="small" disabled={result.status !== 'Complete'} aria-label={`Open ${result.display_name}`} onClick={onOpen}>
          Open
        </button>
        {onReprocess ? (
          <button type="button" class="small" disabled={busy || result.status === 'Bounced'} aria-label={`Reprocess ${result.display_name}`} onClick={onReprocess}>
            Reprocess
          </button>
        ) : null}
      </div>
    </li>
  );
}

/** The share of a test: create, the link to copy, enable or disable, rotate (a new link; the old one stops). */
function Sharing({ testId }: { testId: string }) {
  const share = useLoad(async (signal) => {
    try {
      return await call<Share>(credentials(), 'GET', p`/v1/preview/sharing/${testId}`, { signal });
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  }, [testId]);
  const act = useAction();
  const writable = can('write');
  const s = share.data;
  return (
    <section class="panel" aria-labelledby="share-h">
      <h3 id="share-h">Share</h3>
      <ErrorText error={share.error ?? act.error} />
      {share.loading && share.data === undefined ? <Loading what="the share" /> : null}
      {s === null ? (
        <>
          <p class="muted">Not shared. A share is a public page of the screenshots, for anyone with its link, for 30 days.</p>
          {writable ? (
            <button type="button" disabled={act.busy} onClick={() => void act.run(async () => (await call(credentials(), 'POST', '/v1/preview/sharing', { json: { test_id: testId } }), share.reload()))}>
              Create share link
            </button>
          ) : null}
        </>
      ) : null}
      {s ? (
        <>
          <p class="secret-line">
            <span>Share link:</span>{' '}
            <a href={s.url} target="_blank" rel="noopener noreferrer" class="break" id="share-link">
              {s.url}
            </a>{' '}
            <CopyButton value={s.url} label="Copy share link" />
          </p>
          <p>
            {s.enabled ? <span class="badge ok">Enabled</span> : <span class="badge bad">Disabled</span>} <span class="muted">expires {formatDate(s.expires_at)}</span>
          </p>
          {writable ? (
            <div class="actions">
              <button
                type="button"
                disabled={act.busy}
                onClick={() => void act.run(async () => (await call(credentials(), 'PUT', p`/v1/preview/sharing/${testId}`, { query: { url_uuid: s.url_uuid }, json: { enabled: !s.enabled } }), share.reload()))}
              >
                {s.enabled ? 'Disable share' : 'Enable share'}
              </button>
              <button type="button" disabled={act.busy} onClick={() => void act.run(async () => (await call(credentials(), 'POST', p`/v1/preview/sharing/${testId}/rotate`, { query: { url_uuid: s.url_uuid } }), share.reload()))}>
                Rotate link
              </button>
              <ConfirmButton
                label="Delete share"
                question="Delete the share? Its link stops working."
                confirmLabel="Delete share"
                onConfirm={() => void act.run(async () => (await call(credentials(), 'DELETE', p`/v1/preview/sharing/${testId}`, { query: { url_uuid: s.url_uuid } }), share.reload()))}
              />
            </div>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

/** Export: a zip of the finished clients' screenshots, made by the API, then downloaded with the key. */
function Export({ testId, clients }: { testId: string; clients: string[] }) {
  const act = useAction();
  const [job, setJob] = useState<ExportJob>();
  return (
    <div class="actions">
      <button
        type="button"
        disabled={act.busy || !clients.length}
        onClick={() =>
          void act.run(async () => {
            let current = await call<ExportJob>(credentials(), 'POST', p`/v2/preview/tests/${testId}/exports`, { json: { clients, test_id: testId } });
            setJob(current);
            for (let i = 0; /^process/i.test(current.job_status) && i < 120; i++) {
              await new Promise((resolve) => setTimeout(resolve, 1000));
              current = await call<ExportJob>(credentials(), 'GET', p`/v2/preview/tests/${testId}/exports/${current.job_id}`);
              setJob(current);
            }
            if (!current.zip_url) throw new Error(`The export ${current.job_status.toLowerCase()}${current.error ? `: ${current.error.message}` : ''}`);
            saveBlob(await download(credentials(), current.zip_url, { accept: 'application/zip' }), `preview-${testId}.zip`);
          })
        }
      >
        Export screenshots (zip)
      </button>
      {job ? (
        <span role="status" class="muted">
          Export {job.job_status}
          {job.failed_clients?.length ? `; without screenshots: ${job.failed_clients.join(', ')}` : ''}
        </span>
      ) : null}
      <ErrorText error={act.error} />
    </div>
  );
}

function TestDetail({ testId, onDeleted, onClose }: { testId: string; onDeleted: () => void; onClose: () => void }) {
  const info = useLoad((signal) => call<TestInfo>(credentials(), 'GET', p`/v2/preview/tests/${testId}`, { signal }), [testId]);
  const results = useLoad((signal) => call<Record<string, ClientResult | null>>(credentials(), 'GET', p`/v1/preview/tests/${testId}/results`, { signal }), [testId]);
  const [open, setOpen] = useState<string>();
  const act = useAction();
  const writable = can('write');
  const processing = info.data?.processing.length ?? 0;
  // Live: while clients render, ask again every two seconds.
  useEffect(() => {
    if (!info.data || !processing) return;
    const timer = setTimeout(() => {
      info.reload();
      results.reload();
    }, 2000);
    return () => clearTimeout(timer);
  }, [info.data, processing]);
  const list = useMemo(() => Object.values(results.data ?? {}).filter((r): r is ClientResult => !!r), [results.data]);
  const total = info.data ? info.data.completed.length + info.data.processing.length + info.data.bounced.length : 0;
  const done = info.data ? info.data.completed.length + info.data.bounced.length : 0;
  const subject = info.data?.subject ?? '';
  const openResult = list.find((r) => r.id === open);
  // Opened (or just created): the test is where the reader's attention goes, also on a phone.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [testId]);
  return (
    <section aria-labelledby="test-h" class="test-detail">
      <div class="page-head">
        <h2 id="test-h" class="break" ref={heading} tabIndex={-1}>
          Test “{subject}”
        </h2>
        <div class="actions">
          <button type="button" onClick={onClose}>
            Close test
          </button>
          {writable ? (
            <ConfirmButton
              label="Delete test"
              question="Delete this test with its screenshots, exports and share? This cannot be undone."
              confirmLabel="Delete test"
              onConfirm={() => void act.run(async () => (await call(credentials(), 'DELETE', p`/v2/preview/tests/${testId}`), onDeleted()))}
            />
          ) : null}
        </div>
      </div>
      <ErrorText error={info.error ?? results.error ?? act.error} />
      {info.data ? (
        <div class="progress-line">
          <label for="test-progress">
            {done} of {total} clients done{info.data.bounced.length ? ` (${info.data.bounced.length} failed)` : ''}
            {processing ? `, ${processing} rendering` : ''}
          </label>
          <progress id="test-progress" max={total || 1} value={done} />
          <span class="muted"> created {formatDate(info.data.date)}</span>
        </div>
      ) : null}
      {info.data && writable ? <Export testId={testId} clients={info.data.completed} /> : null}
      {openResult ? <LargeView key={openResult.id} result={openResult} subject={subject} onClose={() => setOpen(undefined)} /> : null}
      {results.loading && !results.data ? <Loading what="screenshots" /> : null}
      <ul class="client-grid" aria-label="Clients">
        {list.map((r) => (
          <ClientCard
            key={r.id}
            result={r}
            subject={subject}
            busy={act.busy}
            onOpen={() => setOpen(r.id)}
            onReprocess={
              writable
                ? () =>
                    void act.run(async () => {
                      const reply = await call<Record<string, { success: boolean; reason?: string }>>(credentials(), 'PUT', p`/v1/preview/tests/${testId}/results/reprocess`, { json: { clients: [r.id] } });
                      const outcome = reply[r.id];
                      if (outcome && !outcome.success) throw new Error(`${r.display_name} cannot be reprocessed: ${outcome.reason ?? 'refused'}`);
                      info.reload();
                      results.reload();
                    })
                : undefined
            }
          />
        ))}
      </ul>
      <Sharing testId={testId} />
    </section>
  );
}

function CreateTest({ catalog, onCreated }: { catalog: Record<string, CatalogClient>; onCreated: (id: string) => void }) {
  const clients = Object.values(catalog).filter((c) => !isDark(c));
  const [chosen, setChosen] = useState<Set<string>>(() => new Set(clients.filter((c) => c.default).map((c) => c.id)));
  const [dark, setDark] = useState(false);
  const [warnings, setWarnings] = useState<string[]>([]);
  const act = useAction();
  const toggle = (id: string, on: boolean) => setChosen((set) => new Set(on ? [...set, id] : [...set].filter((x) => x !== id)));
  const withDark = [...chosen, ...(dark ? [...chosen].map((id) => darkTwin(id, catalog)).filter((x): x is string => !!x) : [])];
  return (
    <details class="panel" open>
      <summary>Create a test</summary>
      <form
        class="stack-wide"
        aria-label="Create a preview test"
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          const subject = (form.elements.namedItem('subject') as HTMLInputElement).value;
          const html = (form.elements.namedItem('html') as HTMLTextAreaElement).value;
          const imageBlocking = (form.elements.namedItem('image_blocking') as HTMLInputElement).checked;
          void act.run(async () => {
            const reply = await call<{ id: string; warnings?: Array<{ message: string }> }>(credentials(), 'POST', '/v2/preview/tests', { json: { subject, html, clients: withDark, image_blocking: imageBlocking } });
            setWarnings(reply.warnings?.map((w) => w.message) ?? []);
            onCreated(reply.id);
          });
        }}
      >
        <div class="field">
          <label for="pv-subject">Subject</label>
          <input id="pv-subject" name="subject" required autocomplete="off" />
        </div>
        <div class="field">
          <label for="pv-html">Email HTML</label>
          <textarea id="pv-html" name="html" class="mono" rows={8} required spellcheck={false} defaultValue={'<!doctype html>\n<html lang="en">\n<body>\n<h1>Hello</h1>\n<p>Your email here.</p>\n</body>\n</html>\n'} />
        </div>
        <div class="client-choice">
          {CATEGORIES.map((category) => {
            const inCategory = clients.filter((c) => c.category === category);
            if (!inCategory.length) return null;
            return (
              <fieldset key={category}>
                <legend>{category === 'Application' ? 'Desktop applications' : category === 'Web' ? 'Webmail' : 'Mobile'}</legend>
                {inCategory.map((c) => (
                  <label class="check" key={c.id}>
                    <input type="checkbox" checked={chosen.has(c.id)} onChange={(e) => toggle(c.id, (e.target as HTMLInputElement).checked)} />
                    <span>
                      {c.client} ({c.os}){c.fidelity ? <span class="muted"> · {FIDELITY[c.fidelity] ?? c.fidelity}</span> : null}
                    </span>
                  </label>
                ))}
              </fieldset>
            );
          })}
        </div>
        <fieldset>
          <legend>Options</legend>
          <label class="check">
            <input type="checkbox" name="image_blocking" />
            Image blocking (adds screenshots with images off)
          </label>
          <label class="check">
            <input type="checkbox" checked={dark} onChange={(e) => setDark((e.target as HTMLInputElement).checked)} />
            Dark mode (adds the dark-mode twin of each chosen client that has one)
          </label>
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary" disabled={act.busy || !chosen.size}>
            Create test
          </button>
          <span class="muted">{withDark.length} clients</span>
        </div>
        <ErrorText error={act.error} />
        {warnings.length ? (
          <ul class="notice">
            {warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
        ) : null}
      </form>
    </details>
  );
}

/** The account's preview-by-email address: mail sent to it becomes a test. */
function PreviewAddress() {
  const address = useLoad((signal) => fetchPreviewAddress<{ preview_address: string }>(signal), []);
  return (
    <p class="preview-address">
      <strong>Preview by email:</strong>{' '}
      {address.data ? (
        <>
          send an email to <code class="break">{address.data.preview_address}</code> and it becomes a test. <CopyButton value={address.data.preview_address} label="Copy preview address" />
        </>
      ) : address.error ? (
        <span class="muted">{address.error}</span>
      ) : (
        'loading…'
      )}
    </p>
  );
}

export default function Previews() {
  const { region } = useAppState();
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<string>();
  const catalog = useLoad((signal) => fetchCatalog<{ clients: Record<string, CatalogClient> }>(signal), [region]);
  const tests = useLoad((signal) => fetchTests<TestSummary[]>(page, signal), [page, region]);
  return (
    <Page title="Previews">
      {can('write') ? <PreviewAddress /> : null}
      <ErrorText error={catalog.error ?? tests.error} />
      {selected ? (
        <TestDetail
          key={selected}
          testId={selected}
          onClose={() => setSelected(undefined)}
          onDeleted={() => {
            setSelected(undefined);
            tests.reload();
          }}
        />
      ) : null}
      {can('write') && catalog.data ? (
        <CreateTest
          catalog={catalog.data.clients}
          onCreated={(id) => {
            setSelected(id);
            setPage(1);
            tests.reload();
          }}
        />
      ) : null}
      <h2>Tests</h2>
      {tests.loading && !tests.data ? <Loading what="tests" /> : null}
      {tests.data ? (
        <>
          <div class="table-wrap" tabIndex={0}>
            <table>
              <caption class="muted">Preview tests, newest first (kept 90 days)</caption>
              <Head columns={['Subject', 'Created', 'Open']} />
              <tbody>
                {tests.data.map((t) => (
                  <tr key={t.id} class={t.id === selected ? 'selected' : ''}>
                    <td class="break">{t.subject}</td>
                    <td>{formatDate(t.date)}</td>
                    <td>
                      <button type="button" class="small" aria-label={`Open test ${t.subject}`} onClick={() => setSelected(t.id)}>
                        Open
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {!tests.data.length ? <p class="muted">No tests yet.</p> : null}
          </div>
          <div class="pager">
            <button type="button" disabled={page === 1} onClick={() => setPage(page - 1)}>
              Newer
            </button>
            <button type="button" disabled={tests.data.length < PAGE} onClick={() => setPage(page + 1)}>
              Older
            </button>
          </div>
        </>
      ) : null}
    </Page>
  );
}
