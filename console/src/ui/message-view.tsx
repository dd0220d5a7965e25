import { useState } from 'preact/hooks';
import { ErrorText, saveBlob, Tabs, Head } from './widgets';

export interface AttachmentLink {
  name: string;
  contentType: string;
  size: number;
  download(): Promise<Blob>;
}

export interface MessageParts {
  subject: string;
  from: string;
  to: string;
  html?: string;
  text?: string;
  headers: Array<[string, string]>;
  attachments: AttachmentLink[];
  /** The raw source, fetched when its tab is opened. */
  raw?: () => Promise<string>;
}

/**
 * The document the message's HTML is shown in: its own Content-Security-Policy first (policies
 * add up, so it narrows the console's), which lets no script run and, until the user asks, no
 * remote image load; links open in a new tab instead of in the frame.
 */
export function frameDocument(html: string, remoteImages: boolean): string {
  const images = remoteImages ? 'img-src data: cid: https: http:' : 'img-src data: cid:';
  const policy = `default-src 'none'; ${images}; style-src 'unsafe-inline'; font-src data:; script-src 'none'; form-action 'none'; base-uri 'none'`;
  return `<meta http-equiv="Content-Security-Policy" content="${policy}"><meta name="referrer" content="no-referrer"><base target="_blank">${html}`;
}

/** The HTML body in a sandboxed frame: no scripts (the sandbox allows none), no remote images until asked. */
export function HtmlFrame({ html, title, frameClass }: { html: string; title: string; frameClass?: string }) {
  const [remote, setRemote] = useState(false);
  const hasRemote = /<img[^>]+src\s*=\s*["']?https?:|url\(\s*["']?https?:/i.test(html);
  return (
    <div>
      {hasRemote && !remote ? (
        <p class="notice">
          Remote images are blocked.{' '}
          <button type="button" class="small" onClick={() => setRemote(true)}>
            Load remote images
          </button>
        </p>
      ) : null}
      <iframe class={frameClass ? `message ${frameClass}` : 'message'} title={title} sandbox="allow-popups allow-popups-to-escape-sandbox" referrerpolicy="no-referrer" srcdoc={frameDocument(html, remote)} />
    </div>
  );
}

function formatSize(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

type Tab = 'html' | 'text' | 'headers' | 'attachments' | 'raw';

/** One message: its HTML (sandboxed), text, headers, attachments and raw source; all of it as text but the frame. */
export function MessageView({ message }: { message: MessageParts }) {
  const tabs: Array<readonly [Tab, string]> = [
    ...(message.html ? [['html', 'HTML'] as const] : []),
    ['text', 'Text'] as const,
    ['headers', 'Headers'] as const,
    ['attachments', `Attachments (${message.attachments.length})`] as const,
    ...(message.raw ? [['raw', 'Raw'] as const] : []),
  ];
  const [tab, setTab] = useState<Tab>(tabs[0]![0]);
  const [raw, setRaw] = useState<string>();
  const [error, setError] = useState<string>();
  const select = (next: Tab) => {
    setTab(next);
    if (next === 'raw' && raw === undefined && message.raw) message.raw().then(setRaw, (e: Error) => setError(e.message));
  };
  return (
    <div class="message-view">
      <dl class="message-meta">
        <dt>Subject</dt>
        <dd class="break">{message.subject}</dd>
        <dt>From</dt>
        <dd class="break">{message.from}</dd>
        <dt>To</dt>
        <dd class="break">{message.to}</dd>
      </dl>
      <Tabs tabs={tabs} current={tab} onSelect={select} label="Message parts" />
      <div id="tab-panel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
        <ErrorText error={error} />
        {tab === 'html' && message.html ? <HtmlFrame html={message.html} title={`HTML of “${message.subject}”`} /> : null}
        {tab === 'text' ? <pre class="raw" tabIndex={0}>{message.text ?? '(no text part)'}</pre> : null}
        {tab === 'headers' ? (
          <div class="table-wrap" tabIndex={0}>
            <table>
              <Head columns={['Header', 'Value']} />
              <tbody>
                {message.headers.map(([name, value], i) => (
                  <tr key={i}>
                    <td>{name}</td>
                    <td class="break mono">{value}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        {tab === 'attachments' ? (
          message.attachments.length ? (
            <ul>
              {message.attachments.map((a, i) => (
                <li key={i}>
                  <button type="button" class="small" onClick={() => a.download().then((blob) => saveBlob(blob, a.name || `attachment-${i + 1}`), (e: Error) => setError(e.message))}>
                    Download {a.name || `attachment ${i + 1}`}
                  </button>{' '}
                  <span class="muted">
                    {a.contentType}, {formatSize(a.size)}
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">No attachments.</p>
          )
        ) : null}
        {tab === 'raw' ? <pre class="raw" tabIndex={0}>{raw ?? 'Loading…'}</pre> : null}
      </div>
    </div>
  );
}
