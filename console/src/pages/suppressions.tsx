import { useState } from 'preact/hooks';
import { call, p } from '../api';
import { toCsv } from '../csv';
import { can, credentials, useAppState } from '../session';
import { DomainPicker } from '../ui/domain-picker';
import { useAction, useLoad } from '../ui/load';
import { pivotOf } from '../ui/paging';
import { fetchEntries, FIRST_LIST, PAGE_SIZE, type Entry, type EntryPage, type List } from './suppressions.load';
import { ConfirmButton, ErrorText, fieldsOf, Loading, Page, saveBlob, Tabs } from '../ui/widgets';

const LISTS: ReadonlyArray<readonly [List, string]> = [
  ['bounces', 'Bounces'],
  ['complaints', 'Complaints'],
  ['unsubscribes', 'Unsubscribes'],
  ['whitelists', 'Allowlist'],
];

/** The columns shown and exported per list; an export reads back through the list's import. */
const COLUMNS: Record<List, readonly string[]> = {
  bounces: ['address', 'code', 'error', 'created_at'],
  complaints: ['address', 'created_at'],
  unsubscribes: ['address', 'tags', 'created_at'],
  whitelists: ['value', 'type', 'reason', 'createdAt'],
};

const keyOf = (list: List, entry: Entry) => String(list === 'whitelists' ? entry.value : entry.address);

async function exportList(domain: string, list: List): Promise<Blob> {
  const rows: Entry[] = [];
  let pivot: Record<string, string> | undefined = {};
  while (pivot) {
    const page: EntryPage = await call<EntryPage>(credentials(), 'GET', p`/v3/${domain}/${list}`, { query: { limit: 1000, ...pivot } });
    rows.push(...page.items);
    pivot = page.items.length === 1000 ? pivotOf(page.paging.next) : undefined;
  }
  // The allowlist's import takes `address` or `domain` by type.
  const exported = list === 'whitelists' ? rows.map((r) => ({ [r.type === 'domain' ? 'domain' : 'address']: r.value, reason: r.reason })) : rows;
  const columns = list === 'whitelists' ? ['address', 'domain', 'reason'] : COLUMNS[list];
  return new Blob([toCsv(columns, exported)], { type: 'text/csv' });
}

function AddForm({ domain, list, onAdded }: { domain: string; list: List; onAdded: () => void }) {
  const act = useAction();
  return (
    <form
      class="row"
      aria-label="Add entry"
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const fields = fieldsOf(form);
        const body: Record<string, string | undefined> = { address: fields.address || undefined };
        if (list === 'bounces') Object.assign(body, { code: fields.code || undefined, error: fields.error || undefined });
        if (list === 'unsubscribes') body.tag = fields.tag || undefined;
        if (list === 'whitelists') Object.assign(body, { reason: fields.reason || undefined, ...(fields.address?.includes('@') ? {} : { address: undefined, domain: fields.address }) });
        void act.run(async () => {
          await call(credentials(), 'POST', p`/v3/${domain}/${list}`, { form: body });
          form.reset();
          onAdded();
        });
      }}
    >
      <div class="field grow">
        <label for="s-address">{list === 'whitelists' ? 'Address or domain' : 'Address'}</label>
        <input id="s-address" name="address" required autocomplete="off" />
      </div>
      {list === 'bounces' ? (
        <>
          <div class="field">
            <label for="s-code">Code</label>
            <input id="s-code" name="code" inputMode="numeric" size={5} placeholder="550" />
          </div>
          <div class="field grow">
            <label for="s-error">Error</label>
            <input id="s-error" name="error" />
          </div>
        </>
      ) : null}
      {list === 'unsubscribes' ? (
        <div class="field">
          <label for="s-tag">Tag (empty: all mail)</label>
          <input id="s-tag" name="tag" />
        </div>
      ) : null}
      {list === 'whitelists' ? (
        <div class="field grow">
          <label for="s-reason">Reason</label>
          <input id="s-reason" name="reason" />
        </div>
      ) : null}
      <button type="submit" disabled={act.busy}>
        Add
      </button>
      <ErrorText error={act.error} />
    </form>
  );
}

function ListPanel({ domain, list, label }: { domain: string; list: List; label: string }) {
  const [term, setTerm] = useState('');
  const [pivot, setPivot] = useState<Record<string, string>>({});
  const page = useLoad((signal) => fetchEntries(domain, list, { limit: PAGE_SIZE, term: term || undefined, ...pivot }, signal), [domain, list, term, pivot]);
  const act = useAction();
  const writable = can('suppress');
  const columns = COLUMNS[list];
  return (
    <div>
      <div class="row">
        <form
          class="row"
          role="search"
          aria-label={`Search ${label}`}
          onSubmit={(e) => {
            e.preventDefault();
            setPivot({});
            setTerm(fieldsOf(e.currentTarget).term ?? '');
          }}
        >
          <div class="field">
            <label for="s-term">Search</label>
            <input id="s-term" name="term" type="search" placeholder="Starts with…" />
          </div>
          <button type="submit">Search</button>
        </form>
        <div class="actions">
          <button type="button" onClick={() => void act.run(async () => saveBlob(await exportList(domain, list), `${domain}-${list}.csv`))}>
            Export CSV
          </button>
          {writable ? (
            <>
              <div class="field">
                <label for="s-import">Import CSV</label>
                <input
                  id="s-import"
                  type="file"
                  accept=".csv,text/csv"
                  onChange={(e) => {
                    const input = e.target as HTMLInputElement;
                    const file = input.files?.[0];
                    if (!file) return;
                    void act.run(async () => {
                      await call(credentials(), 'POST', p`/v3/${domain}/${list}/import`, { form: { file } });
                      input.value = '';
                      page.reload();
                    });
                  }}
                />
              </div>
              <ConfirmButton
                label="Delete all"
                question={`Delete every entry of ${label} for ${domain}? This cannot be undone.`}
                confirmLabel={`Delete all ${label.toLowerCase()}`}
                onConfirm={() =>
                  void act.run(async () => {
                    await call(credentials(), 'DELETE', p`/v3/${domain}/${list}`);
                    page.reload();
                  })
                }
              />
            </>
          ) : null}
        </div>
      </div>
      <ErrorText error={page.error ?? act.error} />
      {writable ? <AddForm domain={domain} list={list} onAdded={page.reload} /> : null}
      {page.loading && !page.data ? <Loading what={label} /> : null}
      {page.data ? (
        <>
          <div class="table-wrap" tabIndex={0}>
            <table>
              <caption class="muted">
                {label} of {domain}
              </caption>
              <thead>
                <tr>
                  {columns.map((c) => (
                    <th scope="col" key={c}>
                      {c}
                    </th>
                  ))}
                  {writable ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {page.data.items.map((entry) => (
                  <tr key={keyOf(list, entry)}>
                    {columns.map((c) => (
                      <td key={c} class="break">
                        {Array.isArray(entry[c]) ? (entry[c] as string[]).join(', ') : String(entry[c] ?? '')}
                      </td>
                    ))}
                    {writable ? (
                      <td>
                        <button
                          type="button"
                          class="small danger"
                          aria-label={`Delete ${keyOf(list, entry)}`}
                          onClick={() =>
                            void act.run(async () => {
                              await call(credentials(), 'DELETE', p`/v3/${domain}/${list}/${keyOf(list, entry)}`);
                              page.reload();
                            })
                          }
                        >
                          Delete
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
            {!page.data.items.length ? <p class="muted">No entries.</p> : null}
          </div>
          <div class="pager">
            <button type="button" disabled={!pivot.page} onClick={() => setPivot({})}>
              First
            </button>
            <button type="button" disabled={page.data.items.length < PAGE_SIZE} onClick={() => setPivot(pivotOf(page.data!.paging.next) ?? {})}>
              Next
            </button>
          </div>
        </>
      ) : null}
    </div>
  );
}

export default function Suppressions() {
  const { domain } = useAppState();
  const [list, setList] = useState<List>(FIRST_LIST);
  return (
    <Page title="Suppressions">
      <DomainPicker />
      <Tabs tabs={LISTS} current={list} onSelect={setList} label="Suppression lists" />
      <div id="tab-panel" role="tabpanel" aria-labelledby={`tab-${list}`}>
        {domain ? <ListPanel key={`${domain}-${list}`} domain={domain} list={list} label={LISTS.find(([l]) => l === list)![1]} /> : null}
      </div>
    </Page>
  );
}
