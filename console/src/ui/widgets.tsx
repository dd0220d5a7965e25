import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export function ErrorText({ error }: { error?: string }) {
  return error ? <p class="error" role="alert">{error}</p> : null;
}

export function Notice({ children }: { children: ComponentChildren }) {
  return <p class="notice" role="status">{children}</p>;
}

export function Loading({ what }: { what: string }) {
  return <p class="muted" role="status">Loading {what}…</p>;
}

/** A page's frame: its heading (what the page is called) and its content. */
export function Page({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Mailplane console`;
  }, [title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title">{title}</h1>
        {actions ? <div class="actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** Copies a value (a DNS record, a secret) to the clipboard. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="small"
      aria-label={label}
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        });
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

/** A question asked before something that cannot be undone, in a modal dialog. */
export function ConfirmButton({
  label,
  text,
  question,
  confirmLabel,
  onConfirm,
  disabled,
  class: className,
}: {
  /** The button's accessible name, and its dialog's. */
  label: string;
  /** What the button shows, when shorter than its name (a row's "Disable"). */
  text?: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  disabled?: boolean;
  class?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button type="button" class={className ?? 'danger'} disabled={disabled} aria-label={text ? label : undefined} onClick={() => dialog.current?.showModal()}>
        {text ?? label}
      </button>
      <dialog ref={dialog} aria-label={label}>
        <p>{question}</p>
        <div class="actions">
          <button
            type="button"
            class="danger"
            onClick={() => {
              dialog.current?.close();
              onConfirm();
            }}
          >
            {confirmLabel}
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}

/** A secret shown once (a new API key, an SMTP password): nobody can read it again. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  return (
    <div class="secret" role="status">
      <p>
        <strong>{label}</strong> (shown once; copy it now):
      </p>
      <p class="secret-line">
        <code>{value}</code> <CopyButton value={value} label={`Copy ${label}`} />
      </p>
    </div>
  );
}

export function Tabs<T extends string>({ tabs, current, onSelect, label }: { tabs: ReadonlyArray<readonly [T, string]>; current: T; onSelect: (tab: T) => void; label: string }) {
  return (
    <div role="tablist" aria-label={label} class="tabs">
      {tabs.map(([id, name]) => (
        <button
          type="button"
          role="tab"
          id={`tab-${id}`}
          aria-selected={id === current}
          aria-controls="tab-panel"
          tabIndex={id === current ? 0 : -1}
          onClick={() => onSelect(id)}
          onKeyDown={(e) => {
            const at = tabs.findIndex(([t]) => t === current);
            const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
            if (!step) return;
            const next = tabs[(at + step + tabs.length) % tabs.length]![0];
            onSelect(next);
            document.getElementById(`tab-${next}`)?.focus();
          }}
        >
          {name}
        </button>
      ))}
    </div>
  );
}

/** JSON as the API gave it, as text. */
export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre class="json" tabIndex={0} aria-label={label}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** Offers a Blob to save. */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The browser's locale, unless it names one Intl cannot use (a POSIX locale such as `en-US@posix`). */
const LOCALE = (() => {
  try {
    new Intl.DateTimeFormat();
    return undefined;
  } catch {
    return 'en-US';
  }
})();

export function formatDate(value: string | number | undefined, dateOnly = false): string {
  if (value === undefined || value === '') return '';
  const date = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return dateOnly ? date.toLocaleDateString(LOCALE) : date.toLocaleString(LOCALE);
}

/** The form's fields as strings (named inputs only). */
export function fieldsOf(form: HTMLFormElement): Record<string, string> {
  const data = new FormData(form);
  const out: Record<string, string> = {};
  for (const [name, value] of data) if (typeof value === 'string') out[name] = value;
  return out;
}

/** A table's header row: one column header per name. */
/** "1 user", "2 users": a count with its noun, plural unless the count is one (`plural` for nouns not made with an s). */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? noun : plural}`;
}

/** A select's options, each value shown as itself unless `label` says otherwise. */
export function Options({ values, label = (value) => value }: { values: readonly string[]; label?: (value: string) => string }) {
  return (
    <>
      {values.map((value) => (
        <option key={value} value={value}>
          {label(value)}
        </option>
      ))}
    </>
  );
}

export function Head({ columns }: { columns: ReadonlyArray<string | false> }) {
  return (
    <thead>
      <tr>
        {columns.filter((c): c is string => c !== false).map((c) => (
          <th scope="col" key={c}>
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}
