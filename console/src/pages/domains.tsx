import { Link, useLocation } from 'wouter-preact';
import { call } from '../api';
import { can, credentials, useAppState } from '../session';
import { listDomains } from '../ui/domain-picker';
import { useAction, useLoad } from '../ui/load';
import { ErrorText, formatDate, Head, Loading, Page } from '../ui/widgets';

export function StateBadge({ state }: { state: string }) {
  const kind = state === 'active' ? 'ok' : state === 'unverified' ? 'wait' : 'bad';
  return <span class={`badge ${kind}`}>{state}</span>;
}

export default function Domains() {
  const { region } = useAppState();
  const domains = useLoad((signal) => listDomains(signal), [region]);
  const add = useAction();
  const [, navigate] = useLocation();
  return (
    <Page title="Domains">
      {can('write') ? (
        <form
          class="panel row"
          aria-label="Add domain"
          onSubmit={(e) => {
            e.preventDefault();
            const input = e.currentTarget.elements.namedItem('name') as HTMLInputElement;
            const name = input.value.trim();
            void add.run(async () => {
              await call(credentials(), 'POST', '/v4/domains', { form: { name } });
              navigate(`/domains/${encodeURIComponent(name.toLowerCase())}`);
            });
          }}
        >
          <div class="field grow">
            <label for="new-domain">Domain name</label>
            <input id="new-domain" name="name" required placeholder="mg.example.com" autocomplete="off" />
          </div>
          <button type="submit" class="primary" disabled={add.busy}>
            Add domain
          </button>
          <ErrorText error={add.error} />
        </form>
      ) : null}
      <ErrorText error={domains.error} />
      {domains.loading && !domains.data ? <Loading what="domains" /> : null}
      {domains.data ? (
        <div class="table-wrap" tabIndex={0}>
          <table>
            <caption class="muted">{domains.data.length} domains</caption>
            <Head columns={['Name', 'State', 'Type', 'Created']} />
            <tbody>
              {domains.data.map((d) => (
                <tr key={d.name}>
                  <td class="break">
                    <Link href={`/domains/${encodeURIComponent(d.name)}`}>{d.name}</Link>
                  </td>
                  <td>
                    <StateBadge state={d.state} />
                  </td>
                  <td>{d.type}</td>
                  <td>{formatDate(d.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Page>
  );
}
