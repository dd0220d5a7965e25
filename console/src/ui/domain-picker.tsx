import { useEffect } from 'preact/hooks';
import { call } from '../api';
import { credentials, setDomain, useAppState } from '../session';
import { useLoad } from './load';
import { ErrorText, Options } from './widgets';

export interface DomainSummary {
  name: string;
  state: string;
  type: string;
  created_at: string;
}

export async function listDomains(signal?: AbortSignal): Promise<DomainSummary[]> {
  const reply = await call<{ items: DomainSummary[]; total_count: number }>(credentials(), 'GET', '/v4/domains', { query: { limit: 1000 }, signal });
  return reply.items;
}

/**
 * The "Domain" picker of the pages that act on one domain. The choice is remembered while signed
 * in; the first domain is picked when none was.
 */
export function DomainPicker() {
  const { domain, region } = useAppState();
  const domains = useLoad((signal) => listDomains(signal), [region]);
  const names = domains.data?.map((d) => d.name) ?? [];
  useEffect(() => {
    if (domains.data && names.length && (!domain || !names.includes(domain))) setDomain(names[0]);
  }, [domains.data, domain]);
  return (
    <div class="picker">
      <label for="domain-picker">Domain</label>
      <select id="domain-picker" value={domain ?? ''} onChange={(e) => setDomain((e.target as HTMLSelectElement).value)} disabled={!names.length}>
        {!names.length ? <option value="">{domains.loading ? 'Loading…' : 'No domains'}</option> : null}
        <Options values={names} />
      </select>
      <ErrorText error={domains.error} />
    </div>
  );
}

/** The domains as a select's options (after any "All domains" option the select has). */
export function DomainOptions({ domains }: { domains?: DomainSummary[] }) {
  return <Options values={domains?.map((d) => d.name) ?? []} />;
}
