import { useState } from 'preact/hooks';
import { call, p } from '../api';
import { can, credentials, useAppState } from '../session';
import { useAction, useLoad } from '../ui/load';
import { fetchRoutes, PAGE_SIZE } from './routes.load';
import { ConfirmButton, ErrorText, fieldsOf, Loading, Page, Head } from '../ui/widgets';
import { SubmitOrCancel } from '../ui/form-parts';

interface MailRoute {
  id: string;
  priority: number;
  description: string;
  expression: string;
  actions: string[];
  created_at: string;
}


function RouteForm({ route, onSaved, onCancel }: { route?: MailRoute; onSaved: () => void; onCancel?: () => void }) {
  const act = useAction();
  const id = route ? `r-${route.id}` : 'r-new';
  return (
    <form
      class="panel stack"
      aria-label={route ? `Edit route ${route.description || route.id}` : 'Create route'}
      onSubmit={(e) => {
        e.preventDefault();
        const { priority, description, expression, actions } = fieldsOf(e.currentTarget);
        const action = (actions ?? '').split('\n').map((a) => a.trim()).filter(Boolean);
        const form = { priority: priority || '0', description, expression, action };
        void act.run(async () => {
          if (route) await call(credentials(), 'PUT', p`/v3/routes/${route.id}`, { form });
          else await call(credentials(), 'POST', '/v3/routes', { form });
          onSaved();
        });
      }}
    >
      <h2>{route ? 'Edit route' : 'Create route'}</h2>
      <div class="field">
        <label for={`${id}-expression`}>Expression</label>
        <input id={`${id}-expression`} name="expression" class="mono" required defaultValue={route?.expression ?? 'match_recipient(".*@example.com")'} />
      </div>
      <div class="field">
        <label for={`${id}-actions`}>Actions (one a line)</label>
        <textarea id={`${id}-actions`} name="actions" class="mono" rows={3} required defaultValue={route?.actions.join('\n') ?? 'forward("https://example.com/inbound")\nstop()'} />
      </div>
      <div class="row">
        <div class="field">
          <label for={`${id}-priority`}>Priority</label>
          <input id={`${id}-priority`} name="priority" type="number" min={0} defaultValue={String(route?.priority ?? 0)} />
        </div>
        <div class="field grow">
          <label for={`${id}-description`}>Description</label>
          <input id={`${id}-description`} name="description" defaultValue={route?.description ?? ''} />
        </div>
      </div>
      <div class="actions">
        <SubmitOrCancel label={route ? 'Save route' : 'Create route'} busy={act.busy} onCancel={onCancel} />
      </div>
      <ErrorText error={act.error} />
    </form>
  );
}

function MatchTest() {
  const act = useAction();
  const [result, setResult] = useState<{ address: string; route?: MailRoute }>();
  return (
    <form
      class="panel row"
      aria-label="Test routes"
      onSubmit={(e) => {
        e.preventDefault();
        const { address } = fieldsOf(e.currentTarget);
        setResult(undefined);
        void act.run(async () => {
          try {
            const reply = await call<{ route: MailRoute }>(credentials(), 'GET', '/v3/routes/match', { query: { address } });
            setResult({ address: address!, route: reply.route });
          } catch (error) {
            if ((error as { status?: number }).status === 404) setResult({ address: address! });
            else throw error;
          }
        });
      }}
    >
      <div class="field grow">
        <label for="match-address">Address to test</label>
        <input id="match-address" name="address" required placeholder="someone@example.com" />
      </div>
      <button type="submit" disabled={act.busy}>
        Test
      </button>
      <ErrorText error={act.error} />
      {result ? (
        <p role="status" class="break">
          {result.route ? (
            <>
              {result.address} matches <code>{result.route.expression}</code> ({result.route.description || result.route.id}): {result.route.actions.join(', ')}
            </>
          ) : (
            <>No route matches {result.address}.</>
          )}
        </p>
      ) : null}
    </form>
  );
}

export default function Routes() {
  const { region } = useAppState();
  const [skip, setSkip] = useState(0);
  const routes = useLoad((signal) => fetchRoutes<{ items: MailRoute[]; total_count: number }>(skip, signal), [skip, region]);
  const [editing, setEditing] = useState<MailRoute>();
  const act = useAction();
  const writable = can('write');
  return (
    <Page title="Routes">
      <MatchTest />
      <ErrorText error={routes.error ?? act.error} />
      {routes.loading && !routes.data ? <Loading what="routes" /> : null}
      {routes.data ? (
        <>
          <div class="table-wrap" tabIndex={0}>
            <table>
              <caption class="muted">{routes.data.total_count} routes, by priority</caption>
              <Head columns={['Priority', 'Expression', 'Actions', 'Description', writable && 'Edit']} />
              <tbody>
                {routes.data.items.map((r) => (
                  <tr key={r.id}>
                    <td>{r.priority}</td>
                    <td class="break mono">{r.expression}</td>
                    <td class="break mono">{r.actions.join('\n')}</td>
                    <td class="break">{r.description}</td>
                    {writable ? (
                      <td class="actions">
                        <button type="button" class="small" aria-label={`Edit route ${r.description || r.id}`} onClick={() => setEditing(r)}>
                          Edit
                        </button>
                        <ConfirmButton
                          class="danger small"
                          label={`Delete route ${r.description || r.id}`}
                          question={`Delete the route ${r.expression}?`}
                          confirmLabel="Delete route"
                          onConfirm={() =>
                            void act.run(async () => {
                              await call(credentials(), 'DELETE', p`/v3/routes/${r.id}`);
                              routes.reload();
                            })
                          }
                        />
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
            {!routes.data.items.length ? <p class="muted">No routes yet.</p> : null}
          </div>
          <div class="pager">
            <button type="button" disabled={skip === 0} onClick={() => setSkip(Math.max(0, skip - PAGE_SIZE))}>
              Previous
            </button>
            <button type="button" disabled={skip + PAGE_SIZE >= routes.data.total_count} onClick={() => setSkip(skip + PAGE_SIZE)}>
              Next
            </button>
          </div>
        </>
      ) : null}
      {writable ? (
        editing ? (
          <RouteForm key={editing.id} route={editing} onSaved={() => (setEditing(undefined), routes.reload())} onCancel={() => setEditing(undefined)} />
        ) : (
          <RouteForm onSaved={routes.reload} />
        )
      ) : null}
    </Page>
  );
}
