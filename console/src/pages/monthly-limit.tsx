import { ApiError, call, type Credentials } from '../api';
import { can, useAppState } from '../session';
import { FieldError, invalidProps, useFieldAction } from '../ui/field-errors';
import { useAction, useLoad } from '../ui/load';
import { ErrorText, fieldsOf, Loading } from '../ui/widgets';

interface MonthlyLimit {
  limit: number;
  current: number;
  period: string;
  enabled?: boolean;
}

/**
 * Where a monthly limit lives: the account's own (`/v5/accounts/limit/custom/monthly`) or a
 * subaccount's as its parent sets it (`/v5/accounts/subaccounts/{id}/limit/custom/monthly`); and
 * how sending resumes once the limit stopped it (`PUT /v5/accounts/limit/custom/enable`, as the
 * account itself).
 */
export interface LimitTarget {
  id: string;
  credentials: () => Credentials;
  path: string;
  resumeAs: () => Credentials;
}

/** A monthly sending limit: the count against it, and (for admins) set, resume and remove. */
export function MonthlyLimitSection({ target, heading = 'Monthly sending limit' }: { target: LimitTarget; heading?: string }) {
  const { region } = useAppState();
  const limit = useLoad(
    (signal) =>
      call<MonthlyLimit>(target.credentials(), 'GET', target.path, { signal }).catch((error: unknown) => {
        // No limit set is the API's 404 ("No threshold for account"): a state, not a failure.
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      }),
    [region, target.path],
  );
  const set = useFieldAction((m) => (/limit/i.test(m) ? 'limit' : undefined));
  const other = useAction();
  const data = limit.data;
  const id = target.id;
  return (
    <section aria-labelledby={`${id}-h`} class="panel">
      <h2 id={`${id}-h`}>{heading}</h2>
      <p class="muted">A hard cap on the messages the account accepts in a calendar month.</p>
      <ErrorText error={limit.error ?? other.error} />
      {limit.loading && !limit.data ? <Loading what="the limit" /> : null}
      {!limit.loading && !limit.error && !data ? <p>No monthly limit is set.</p> : null}
      {data ? (
        <div>
          <p>
            <strong>{data.current.toLocaleString('en-US')}</strong> of <strong>{data.limit.toLocaleString('en-US')}</strong> messages this month ({Math.round((data.current / data.limit) * 100)}%)
            {data.enabled === false ? <span class="badge bad"> limit reached: sending stopped</span> : null}
          </p>
          <progress class="meter" max={data.limit} value={Math.min(data.current, data.limit)} aria-label="Messages this month against the monthly limit" />
        </div>
      ) : null}
      {can('admin') ? (
        <form
          class="row"
          aria-label="Set monthly limit"
          onSubmit={(e) => {
            e.preventDefault();
            const value = fieldsOf(e.currentTarget).limit;
            void set.run(() => call(target.credentials(), 'PUT', target.path, { query: { limit: value } })).then((ok) => ok && limit.reload());
          }}
        >
          <div class="field">
            <label for={`${id}-value`}>Monthly limit (messages)</label>
            <input id={`${id}-value`} key={data?.limit} name="limit" type="number" min={1} required defaultValue={data ? String(data.limit) : ''} {...invalidProps(set.error, 'limit', `${id}-value`)} />
            <FieldError error={set.error} field="limit" id={`${id}-value`} />
          </div>
          <button type="submit" class="primary" disabled={set.busy}>
            Set limit
          </button>
          {data ? (
            <>
              {data.enabled === false ? (
                <button type="button" onClick={() => void other.run(() => call(target.resumeAs(), 'PUT', '/v5/accounts/limit/custom/enable')).then(() => limit.reload())}>
                  Resume sending
                </button>
              ) : null}
              <button type="button" class="danger" onClick={() => void other.run(() => call(target.credentials(), 'DELETE', target.path)).then(() => limit.reload())}>
                Remove limit
              </button>
            </>
          ) : null}
          {set.error?.field === 'form' ? <ErrorText error={set.error.message} /> : null}
        </form>
      ) : null}
    </section>
  );
}
