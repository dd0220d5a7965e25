import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { handleAuthFailure } from '../session';

export interface Loaded<T> {
  data?: T;
  error?: string;
  loading: boolean;
  reload(): void;
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (HTTP ${error.status})`;
  return (error as Error)?.message ?? String(error);
}

/**
 * Data loaded when the page opens (and again when `deps` change or reload() is called). The request
 * goes out as the page is rendered (a layout effect), not after the next frame as a plain effect's
 * would: that frame came before every page's data.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [result, setResult] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [version, setVersion] = useState(0);
  useLayoutEffect(() => {
    const controller = new AbortController();
    // Unchanged on the first run (it starts loading): no render for nothing.
    setResult((r) => (r.loading ? r : { ...r, loading: true }));
    load(controller.signal).then(
      (data) => !controller.signal.aborted && setResult({ data, loading: false }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        handleAuthFailure(error);
        setResult({ error: errorText(error), loading: false });
      },
    );
    return () => controller.abort();
  }, [...deps, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { ...result, reload };
}

/** An action (a button's work): its error, whether it runs, and a way to run it. */
export function useAction() {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);
  const run = useCallback(async <T,>(work: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await work();
    } catch (e) {
      handleAuthFailure(e);
      if (mounted.current) setError(errorText(e));
      return undefined;
    } finally {
      if (mounted.current) setBusy(false);
    }
  }, []);
  return { error, busy, run, setError };
}
