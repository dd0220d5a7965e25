import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { handleAuthFailure } from '../session';
import { errorText } from './load';

/**
 * An API error shown beside the field it is about, rather than at the top of a form: the platform's
 * messages name what they refuse ("An IP pool named … already exists", "IP … is already in the IP
 * pool …", "Invalid parameter 'limit': …"), and `place` maps a message to the field it names.
 */
export interface PlacedError {
  field: string;
  message: string;
}

export function placeError(error: unknown, place: (message: string) => string | undefined): PlacedError | undefined {
  if (!error) return undefined;
  handleAuthFailure(error);
  // The platform's own words beside a field; anything else (the API unreachable) as load shows it.
  const message = error instanceof ApiError ? error.message : errorText(error);
  const param = /parameter '([\w.]+)'/.exec(message)?.[1];
  return { field: place(message) ?? param ?? 'form', message };
}

/** A form whose API error is shown beside the field it names (`limit`, `address`, `email`, …). */
export function useFieldAction(place: (message: string) => string | undefined = () => undefined) {
  const [error, setError] = useState<PlacedError>();
  const [busy, setBusy] = useState(false);
  const run = (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    return work().then(
      () => (setBusy(false), true),
      (e: unknown) => (setBusy(false), setError(placeError(e, place)), false),
    );
  };
  return { error, busy, run };
}

/** The props that tie a control to its error: aria-invalid and aria-describedby. */
export function invalidProps(error: PlacedError | undefined, field: string, id: string) {
  return error?.field === field ? { 'aria-invalid': true, 'aria-describedby': `${id}-error` } : {};
}

/** The error of one field, under it (an alert, so it is announced). */
export function FieldError({ error, field, id }: { error: PlacedError | undefined; field: string | undefined; id: string }) {
  return field && error?.field === field ? (
    <p class="field-error" id={`${id}-error`} role="alert">
      {error.message}
    </p>
  ) : null;
}

/** A labelled group of checkboxes, one per value. */
export function Checkboxes({ legend, name, values, checked, id, error, field, empty }: { legend: string; name: string; values: string[]; checked?: string[]; id: string; error?: PlacedError; field?: string; empty?: ComponentChildren }) {
  return (
    <fieldset class="checks" aria-describedby={field && error?.field === field ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {values.length ? (
        values.map((value) => (
          <label class="check" key={value}>
            <input type="checkbox" name={name} value={value} defaultChecked={checked?.includes(value)} /> {value}
          </label>
        ))
      ) : (
        <p class="muted">{empty ?? 'None'}</p>
      )}
      <FieldError error={error} field={field} id={id} />
    </fieldset>
  );
}

/** A form's values of one repeated field (checked boxes, a multiple select). */
export function valuesOf(form: HTMLFormElement, name: string): string[] {
  return new FormData(form).getAll(name).filter((v): v is string => typeof v === 'string' && v !== '');
}
