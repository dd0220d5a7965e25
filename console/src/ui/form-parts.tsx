/** A section's heading with a button that loads its figures again. */
export function RefreshHead({ id, title, refreshLabel, onRefresh, loading }: { id: string; title: string; refreshLabel: string; onRefresh: () => void; loading: boolean }) {
  return (
    <div class="page-head">
      <h2 id={id}>{title}</h2>
      <div class="actions">
        <button type="button" onClick={onRefresh} disabled={loading}>
          {refreshLabel}
        </button>
      </div>
    </div>
  );
}

/** A form's submit button (`label`), and Cancel when the form edits something in place. */
export function SubmitOrCancel({ label, busy, disabled, onCancel }: { label: string; busy: boolean; disabled?: boolean; onCancel?: () => void }) {
  return (
    <>
      <button type="submit" class="primary" disabled={busy || disabled}>
        {label}
      </button>
      {onCancel ? (
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      ) : null}
    </>
  );
}
