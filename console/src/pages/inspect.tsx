import './reporting-inspection.css';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { call, download, p } from '../api';
import { can, credentials, handleAuthFailure, useAppState } from '../session';
import { DomainOptions, listDomains } from '../ui/domain-picker';
import { errorText, useAction, useLoad } from '../ui/load';
import { HtmlFrame } from '../ui/message-view';
import { ErrorText, Head, Loading, Page, saveBlob } from '../ui/widgets';

/** The four checks, each an inspection job: created from the HTML, then read until it is done. */
const CHECKS = [
  { id: 'links', name: 'Links', create: '/v1/inspect/links/html-validate', self: (id: string) => p`/v1/inspect/links/${id}` },
  { id: 'images', name: 'Images', create: '/v1/inspect/images/html-validate', self: (id: string) => p`/v1/inspect/images/${id}` },
  { id: 'accessibility', name: 'Accessibility', create: '/v1/inspect/accessibility', self: (id: string) => p`/v1/inspect/accessibility/${id}` },
  { id: 'code', name: 'Code analysis', create: '/v1/inspect/analyze', self: (id: string) => p`/v1/inspect/analyze/${id}` },
] as const;
type CheckId = (typeof CHECKS)[number]['id'];

interface Job {
  id?: string;
  status: string;
  reply?: Record<string, unknown>;
  error?: string;
}

/** Mailgun's own clients read these words by prefix: anything else is a finished job ("Starting" is the page's own, before the API answers). */
const running = (status: string) => /^(process|pending|queu|run|start)/i.test(status);

interface ApiFinding {
  id: string;
  rule: string;
  description: string;
  impact?: string;
  recommendation?: string;
}
interface Located {
  url: string;
  status: string;
  line?: number;
  column?: number;
  absolute_index?: number;
  failures: ApiFinding[];
}
interface A11yRule {
  rule: string;
  id: string;
  impact?: string;
  description: string;
  compliance?: string[];
  instances: Array<{ correctAny: string[]; correctAll: string[]; snippet: string; target: string[]; lineNumber?: number; absoluteIndex?: number }>;
  instance_count?: number;
}
interface CodeFeature {
  slug: string;
  name: string;
  category: string;
  instances: Array<{ id: string; line: number; column: number }>;
  support: Record<'y' | 'a' | 'n' | 'u', Array<{ id: string; notes: string[] }>>;
}
interface ImageOptimization {
  optimized_images: Array<{ id: string; image_url: string; optimized_url?: string; optimized_file_size: string; original_file_size?: string; saved_bytes?: number; optimized_format?: string; status: string; error_message: string | null }>;
}
interface Dictionary {
  lookups: { clients: Record<string, string>; platforms: Record<string, string> };
}

const SEVERITIES = [
  ['critical', 'Critical'],
  ['serious', 'Serious'],
  ['moderate', 'Moderate'],
  ['minor', 'Minor'],
  ['review', 'Needs review'],
  ['info', 'Client support notes'],
] as const;
type Severity = (typeof SEVERITIES)[number][0];

export interface Finding {
  key: string;
  check: string;
  severity: Severity;
  rule: string;
  description: string;
  advice?: string;
  /** The link or image URL, or the element's markup. */
  subject?: string;
  line?: number;
  column?: number;
  /** Character offset of the element's start tag in the HTML, when known. */
  offset?: number;
}

const severityOf = (impact: string | undefined): Severity => (impact === 'critical' || impact === 'serious' || impact === 'moderate' ? impact : 'minor');

/** The character offset of a line and column (both from 1). */
function offsetOf(html: string, line: number, column = 1): number {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const next = html.indexOf('\n', at);
    if (next < 0) return html.length;
    at = next + 1;
  }
  return at + column - 1;
}

/** The line (from 1) an offset is on. */
function lineOf(html: string, offset: number): number {
  let line = 1;
  for (let i = html.indexOf('\n'); i >= 0 && i < offset; i = html.indexOf('\n', i + 1)) line++;
  return line;
}

/** The latest version's level of every client/platform in a code analysis feature. */
function latestLevels(feature: CodeFeature): Map<string, 'y' | 'a' | 'n' | 'u'> {
  const best = new Map<string, { version: string; level: 'y' | 'a' | 'n' | 'u' }>();
  for (const level of ['y', 'a', 'n', 'u'] as const) {
    for (const variant of feature.support[level] ?? []) {
      const [family, platform, ...rest] = variant.id.split('.');
      const key = `${family}.${platform}`;
      const version = rest.join('.');
      const seen = best.get(key);
      if (!seen || version.localeCompare(seen.version, 'en', { numeric: true }) > 0) best.set(key, { version, level });
    }
  }
  return new Map([...best].map(([key, v]) => [key, v.level]));
}

/** Every finding of the four checks, in the shape the page lists and locates them by. */
export function findingsOf(html: string, jobs: Partial<Record<CheckId, Job>>): Finding[] {
  const out: Finding[] = [];
  const links = (jobs.links?.reply?.['items'] as { results?: Located[] } | undefined)?.results ?? [];
  const images = (jobs.images?.reply?.['items'] as { images?: Located[] } | undefined)?.images ?? [];
  for (const [check, list] of [['Links', links], ['Images', images]] as const) {
    list.forEach((item, i) =>
      item.failures.forEach((f, j) =>
        out.push({
          key: `${check}-${i}-${j}`,
          check,
          severity: severityOf(f.impact),
          rule: f.rule,
          description: f.description,
          advice: f.recommendation,
          subject: item.url.length > 200 ? `${item.url.slice(0, 200)}…` : item.url,
          line: item.line,
          column: item.column,
          offset: item.absolute_index ?? (item.line ? offsetOf(html, item.line, item.column) : undefined),
        }),
      ),
    );
  }
  const report = (jobs.accessibility?.reply?.['items'] as Array<{ failures: A11yRule[]; needs_review: A11yRule[] }> | undefined)?.[0];
  for (const [kind, rules] of [['failure', report?.failures ?? []], ['review', report?.needs_review ?? []]] as const) {
    rules.forEach((rule, i) =>
      rule.instances.forEach((instance, j) =>
        out.push({
          key: `a11y-${kind}-${i}-${j}`,
          check: 'Accessibility',
          severity: kind === 'review' ? 'review' : severityOf(rule.impact),
          rule: rule.rule,
          description: `${rule.description}${rule.compliance?.length ? ` (WCAG ${rule.compliance.join(', ')})` : ''}`,
          advice: [...instance.correctAll, ...instance.correctAny].join(' · '),
          subject: instance.snippet.length > 200 ? `${instance.snippet.slice(0, 200)}…` : instance.snippet,
          line: instance.lineNumber,
          offset: instance.absoluteIndex,
        }),
      ),
    );
  }
  const features = (jobs.code?.reply?.['items'] as { features?: CodeFeature[] } | undefined)?.features ?? [];
  for (const feature of features) {
    const levels = [...latestLevels(feature).values()];
    const no = levels.filter((l) => l === 'n').length;
    const partial = levels.filter((l) => l === 'a').length;
    if (!no && !partial) continue;
    feature.instances.forEach((instance, j) =>
      out.push({
        key: `code-${feature.slug}-${j}`,
        check: 'Code analysis',
        severity: 'info',
        rule: feature.name,
        description: `${no ? `Not supported by ${no}` : ''}${no && partial ? ', and partly by ' : partial ? `Partly supported by ${partial}` : ''}${no && partial ? partial : ''} of ${levels.length} clients (latest versions; see the client support table).`,
        line: instance.line,
        column: instance.column,
        offset: offsetOf(html, instance.line, instance.column),
      }),
    );
  }
  return out;
}

/** Elements whose outline would mean nothing in the rendered view (they draw nothing). */
const UNDRAWN = new Set(['style', 'head', 'meta', 'title', 'link', 'script', '!doctype']);

/**
 * The HTML with the element a finding points at marked (an attribute on its start tag), for the
 * frame's own stylesheet to outline. Nothing is run: the marked HTML still goes to a sandboxed frame.
 */
export function markElement(html: string, offset: number | undefined): string | undefined {
  if (offset === undefined || offset < 0 || offset > html.length) return undefined;
  const start = html.lastIndexOf('<', offset);
  if (start < 0) return undefined;
  const name = /^<([a-zA-Z][\w:-]*)/.exec(html.slice(start, start + 64))?.[1];
  if (!name || UNDRAWN.has(name.toLowerCase())) return undefined;
  const at = start + 1 + name.length;
  return `${html.slice(0, at)} data-mp-finding${html.slice(at)}`;
}

/**
 * The frame's own stylesheet for the marked element: an outline, and, where the browser supports
 * it (Chromium 133 and later), the frame opens scrolled to it (`scroll-initial-target`), since no
 * script may run in the frame to scroll it and the console cannot reach into a sandboxed frame.
 */
const HIGHLIGHT = '<style>[data-mp-finding]{outline:3px solid #d0021b !important;outline-offset:2px !important;box-shadow:0 0 0 7px rgba(208,2,27,.28) !important;scroll-initial-target:nearest}</style>';

/** The email rendered in a sandboxed frame (no scripts), the selected finding's element outlined. */
function RenderedView({ html, finding }: { html: string; finding?: Finding }) {
  const marked = finding ? markElement(html, finding.offset) : undefined;
  return (
    <div>
      {finding && !marked ? <p class="muted">This finding is not on an element that shows (it is in the head, a style sheet or a comment): see its line in the source.</p> : null}
      <HtmlFrame html={HIGHLIGHT + (marked ?? html)} title="The email, rendered (the selected finding outlined in red)" frameClass="inspect-frame" />
    </div>
  );
}

/** The HTML as text, a numbered line each, the selected finding's line marked and scrolled to. */
function SourceView({ html, line }: { html: string; line?: number }) {
  const lines = useMemo(() => html.split('\n'), [html]);
  const box = useRef<HTMLOListElement>(null);
  useEffect(() => {
    if (!line) return;
    const item = box.current?.children[line - 1] as HTMLElement | undefined;
    if (item && box.current) box.current.scrollTop = item.offsetTop - box.current.clientHeight / 3;
  }, [line, html]);
  return (
    <ol ref={box} class="source mono" tabIndex={0} aria-label="Source of the checked HTML, by line">
      {lines.map((text, i) => (
        <li key={i} class={i + 1 === line ? 'hit' : undefined} aria-current={i + 1 === line ? 'true' : undefined}>
          <span class="ln" aria-hidden="true">
            {i + 1}
          </span>
          <code>{text || ' '}</code>
        </li>
      ))}
    </ol>
  );
}

const LEVEL_TEXT = { y: 'Yes', a: 'Partial', n: 'No', u: 'Unknown' } as const;
const LEVEL_CLASS = { y: 'ok', a: 'wait', n: 'bad', u: '' } as const;

/** Code analysis's client by feature table: the latest version of each client, as caniemail rates it. */
function ClientSupport({ features }: { features: CodeFeature[] }) {
  const dictionary = useLoad((signal) => call<Dictionary>(credentials(), 'GET', '/v1/inspect/analyze/dictionary', { signal }), []);
  const levels = useMemo(() => features.map(latestLevels), [features]);
  const clients = useMemo(() => [...new Set(levels.flatMap((l) => [...l.keys()]))].sort(), [levels]);
  if (!features.length) return <p class="muted">The HTML uses no feature caniemail tracks.</p>;
  const nameOf = (key: string) => {
    const [family, platform] = key.split('.');
    const names = dictionary.data?.lookups;
    return `${names?.clients[family!] ?? family} (${names?.platforms[platform!] ?? platform})`;
  };
  return (
    <div class="table-wrap support-table" tabIndex={0} role="region" aria-label="Client support table">
      <table>
        <caption class="muted">Client support of the features the email uses (Yes, Partial, No), latest version of each client</caption>
        <thead>
          <tr>
            <th scope="col">Client</th>
            {features.map((f) => (
              <th scope="col" key={f.slug}>
                {f.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {clients.map((client) => (
            <tr key={client}>
              <th scope="row">{nameOf(client)}</th>
              {levels.map((l, i) => {
                const level = l.get(client);
                return <td key={features[i]!.slug}>{level ? <span class={`badge ${LEVEL_CLASS[level]}`}>{LEVEL_TEXT[level]}</span> : '–'}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function formatBytes(value: string | number | undefined): string {
  const bytes = Number(value);
  if (value === undefined || Number.isNaN(bytes)) return '';
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

/** Image optimisation: smaller copies of the email's images, their savings, and each to download. */
function Optimize({ testId }: { testId: string }) {
  const act = useAction();
  const [result, setResult] = useState<ImageOptimization[]>();
  const images = result?.flatMap((r) => r.optimized_images) ?? [];
  const saved = images.reduce((sum, i) => sum + (i.saved_bytes ?? 0), 0);
  return (
    <section aria-labelledby="optimize-h">
      <h3 id="optimize-h">Optimized images</h3>
      {!result && can('write') ? (
        <button type="button" disabled={act.busy} onClick={() => void act.run(async () => setResult((await call<{ items: ImageOptimization[] }>(credentials(), 'POST', p`/v1/inspect/images/${testId}/optimize`)).items))}>
          Optimize images
        </button>
      ) : !result ? (
        <p class="muted">Optimizing takes a key that can write.</p>
      ) : (
        <>
          <p role="status">Saves {formatBytes(saved)} in all.</p>
          <div class="table-wrap" tabIndex={0}>
            <table>
              <Head columns={['Image', 'Original', 'Optimized', 'Saved', 'Status', 'Download']} />
              <tbody>
                {images.map((image, i) => (
                  <tr key={image.id}>
                    <td class="break mono">{image.image_url.length > 80 ? `${image.image_url.slice(0, 80)}…` : image.image_url}</td>
                    <td>{formatBytes(image.original_file_size)}</td>
                    <td>{formatBytes(image.optimized_file_size)}</td>
                    <td>{formatBytes(image.saved_bytes)}</td>
                    <td>{image.status === 'Error' ? `Error: ${image.error_message ?? ''}` : image.status}</td>
                    <td>
                      {image.optimized_url ? (
                        <button
                          type="button"
                          class="small"
                          aria-label={`Download optimized image ${i + 1}`}
                          onClick={() => void act.run(async () => saveBlob(await download(credentials(), image.optimized_url!), `optimized-${i + 1}.${(image.optimized_format ?? 'img').toLowerCase()}`))}
                        >
                          Download
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <ErrorText error={act.error} />
    </section>
  );
}

const SAMPLE = `<!doctype html>
<html lang="en">
<head><title>Welcome</title></head>
<body>
<div lang="en" dir="ltr">
<h1>Welcome aboard</h1>
<p>Read <a href="https://example.com/start">the guide</a> to get started.</p>
</div>
</body>
</html>
`;

/** Where the HTML comes from besides pasting: a template version, or a file (.html, or .eml whose HTML part is taken). */
function SourcePickers({ onHtml }: { onHtml: (html: string, from: string) => void }) {
  const { region } = useAppState();
  const domains = useLoad((signal) => listDomains(signal), [region]);
  const [domain, setDomain] = useState('');
  const [template, setTemplate] = useState('');
  const [version, setVersion] = useState('');
  const templates = useLoad((signal) => (domain ? call<{ items: Array<{ name: string }> }>(credentials(), 'GET', p`/v3/${domain}/templates`, { query: { limit: 100 }, signal }) : Promise.resolve(undefined)), [domain]);
  const versions = useLoad(
    (signal) => (domain && template ? call<{ template: { versions: Array<{ tag: string; active: boolean }> } }>(credentials(), 'GET', p`/v3/${domain}/templates/${template}/versions`, { query: { limit: 100 }, signal }) : Promise.resolve(undefined)),
    [domain, template],
  );
  const act = useAction();
  return (
    <div class="split source-pickers">
      <fieldset>
        <legend>Or a template version</legend>
        <div class="row">
          <div class="field">
            <label for="i-domain">Template domain</label>
            <select id="i-domain" value={domain} onChange={(e) => (setDomain((e.target as HTMLSelectElement).value), setTemplate(''), setVersion(''))}>
              <option value="">Choose a domain</option>
              <DomainOptions domains={domains.data} />
            </select>
          </div>
          <div class="field">
            <label for="i-template">Template</label>
            <select id="i-template" value={template} disabled={!templates.data} onChange={(e) => (setTemplate((e.target as HTMLSelectElement).value), setVersion(''))}>
              <option value="">Choose a template</option>
              {templates.data?.items.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.name}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="i-version">Version</label>
            <select id="i-version" value={version} disabled={!versions.data} onChange={(e) => setVersion((e.target as HTMLSelectElement).value)}>
              <option value="">Active version</option>
              {versions.data?.template.versions.map((v) => (
                <option key={v.tag} value={v.tag}>
                  {v.tag}
                  {v.active ? ' (active)' : ''}
                </option>
              ))}
            </select>
          </div>
          <button
            type="button"
            disabled={!template || act.busy}
            onClick={() =>
              void act.run(async () => {
                const path = version ? p`/v3/${domain}/templates/${template}/versions/${version}` : p`/v3/${domain}/templates/${template}`;
                const reply = await call<{ template: { version: { template?: string; tag: string } } }>(credentials(), 'GET', path, version ? {} : { query: { active: 'yes' } });
                onHtml(reply.template.version.template ?? '', `template ${template}, version ${reply.template.version.tag}`);
              })
            }
          >
            Use this version
          </button>
        </div>
        <ErrorText error={domains.error ?? templates.error ?? versions.error} />
      </fieldset>
      <fieldset>
        <legend>Or a file</legend>
        <div class="field">
          <label for="i-file">Upload an .html or .eml file</label>
          <input
            id="i-file"
            type="file"
            accept=".html,.htm,.eml,text/html,message/rfc822"
            onChange={(e) => {
              const file = (e.target as HTMLInputElement).files?.[0];
              if (!file) return;
              void act.run(async () => {
                const text = await file.text();
                if (/\.eml$/i.test(file.name) || file.type === 'message/rfc822') {
                  const { default: PostalMime } = await import('postal-mime');
                  const parsed = await PostalMime.parse(text);
                  if (!parsed.html) throw new Error(`${file.name} has no HTML part`);
                  onHtml(parsed.html, file.name);
                } else onHtml(text, file.name);
              });
            }}
          />
        </div>
      </fieldset>
      <ErrorText error={act.error} />
    </div>
  );
}

async function runCheck(check: (typeof CHECKS)[number], html: string, update: (job: Job) => void, signal: AbortSignal): Promise<void> {
  try {
    const created = await call<{ meta: { status: string }; items: { id: string } }>(credentials(), 'POST', check.create, { json: { html }, signal });
    const id = created.items.id;
    update({ id, status: created.meta.status });
    let delay = 400;
    for (;;) {
      const reply = await call<Record<string, unknown> & { meta: { status: string } }>(credentials(), 'GET', check.self(id), { signal });
      update({ id, status: reply.meta.status, reply });
      if (!running(reply.meta.status)) return;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(2000, delay * 1.5);
    }
  } catch (error) {
    if (signal.aborted) return;
    handleAuthFailure(error);
    update({ status: 'Failed', error: errorText(error) });
  }
}

export default function Inspect() {
  const [html, setHtml] = useState(SAMPLE);
  const [from, setFrom] = useState<string>();
  const [checked, setChecked] = useState<string>();
  const [jobs, setJobs] = useState<Partial<Record<CheckId, Job>>>({});
  const [selected, setSelected] = useState<string>();
  const runs = useRef<AbortController>();
  useEffect(() => () => runs.current?.abort(), []);
  const done = checked !== undefined && CHECKS.every((c) => jobs[c.id] && !running(jobs[c.id]!.status));
  const findings = useMemo(() => (checked === undefined ? [] : findingsOf(checked, jobs)), [checked, jobs]);
  const finding = findings.find((f) => f.key === selected);
  const shownLine = finding ? (finding.line ?? (finding.offset !== undefined && checked ? lineOf(checked, finding.offset) : undefined)) : undefined;
  const run = () => {
    runs.current?.abort();
    const controller = new AbortController();
    runs.current = controller;
    setChecked(html);
    setSelected(undefined);
    setJobs(Object.fromEntries(CHECKS.map((c) => [c.id, { status: 'Starting' }])));
    for (const check of CHECKS) void runCheck(check, html, (job) => !controller.signal.aborted && setJobs((all) => ({ ...all, [check.id]: job })), controller.signal);
  };
  const imagesId = jobs.images && !running(jobs.images.status) && !jobs.images.error ? jobs.images.id : undefined;
  const features = (jobs.code?.reply?.['items'] as { features?: CodeFeature[] } | undefined)?.features;
  return (
    <Page title="Inspect">
      <form
        class="panel"
        aria-label="Email to inspect"
        onSubmit={(e) => {
          e.preventDefault();
          run();
        }}
      >
        <div class="field">
          <label for="i-html">Email HTML</label>
          <textarea id="i-html" class="mono" rows={12} spellcheck={false} value={html} onInput={(e) => (setHtml((e.target as HTMLTextAreaElement).value), setFrom(undefined))} />
          {from ? <p class="muted">Loaded from {from}.</p> : null}
        </div>
        <SourcePickers onHtml={(value, source) => (setHtml(value), setFrom(source))} />
        {can('write') ? (
          <div class="actions">
            <button type="submit" class="primary" disabled={!html.trim() || (checked !== undefined && !done)}>
              Run checks
            </button>
            <span class="muted">Link validation, image validation, accessibility and code analysis, together.</span>
          </div>
        ) : (
          <p class="notice">This key is read-only: running checks creates inspection tests, which takes a key that can write.</p>
        )}
      </form>
      {checked !== undefined ? (
        <section aria-labelledby="checks-h">
          <h2 id="checks-h">Checks</h2>
          <ul class="check-status" aria-live="polite">
            {CHECKS.map((c) => {
              const job = jobs[c.id];
              return (
                <li key={c.id}>
                  <strong>{c.name}</strong>: {job?.error ? <span class="error">{job.error}</span> : (job?.status ?? 'Starting')}
                </li>
              );
            })}
          </ul>
          {!done ? <Loading what="the checks' results" /> : null}
        </section>
      ) : null}
      {checked !== undefined && done ? (
        <>
          <section aria-labelledby="findings-h">
            <h2 id="findings-h">Findings ({findings.length})</h2>
            <div class="inspect-layout">
              <div class="findings">
                {SEVERITIES.map(([severity, label]) => {
                  const group = findings.filter((f) => f.severity === severity);
                  if (!group.length) return null;
                  return (
                    <section key={severity} aria-labelledby={`sev-${severity}`} class={`severity ${severity}`}>
                      <h3 id={`sev-${severity}`}>
                        {label} ({group.length})
                      </h3>
                      <ul>
                        {group.map((f) => {
                          const line = f.line ?? (f.offset !== undefined ? lineOf(checked, f.offset) : undefined);
                          return (
                            <li key={f.key} class={f.key === selected ? 'finding selected' : 'finding'}>
                              <div>
                                <span class="badge">{f.check}</span> <strong>{f.rule}</strong>
                                {line ? <span class="muted"> · line {line}{f.column ? `, column ${f.column}` : ''}</span> : null}
                              </div>
                              <div>{f.description}</div>
                              {f.subject ? <div class="mono break subject">{f.subject}</div> : null}
                              {f.advice ? <div class="muted">{f.advice}</div> : null}
                              {line || f.offset !== undefined ? (
                                <button type="button" class="small" aria-pressed={f.key === selected} aria-label={`Show in email: ${f.rule}${line ? `, line ${line}` : ''}`} onClick={() => setSelected(f.key)}>
                                  Show in email
                                </button>
                              ) : null}
                            </li>
                          );
                        })}
                      </ul>
                    </section>
                  );
                })}
                {!findings.length ? <p>No findings: every check passed.</p> : null}
              </div>
              <div class="locator">
                <h3 id="where-h">{finding ? `Where: ${finding.rule}${shownLine ? `, line ${shownLine}` : ''}` : 'The email'}</h3>
                <RenderedView html={checked} finding={finding} />
                <SourceView html={checked} line={shownLine} />
              </div>
            </div>
          </section>
          {imagesId ? <Optimize key={imagesId} testId={imagesId} /> : null}
          <section aria-labelledby="support-h">
            <h2 id="support-h">Client support</h2>
            {features ? <ClientSupport features={features} /> : <p class="muted">Code analysis gave no result.</p>}
          </section>
        </>
      ) : null}
    </Page>
  );
}
