import { useEffect, useState } from 'preact/hooks';
import { call, p, uploadWithProgress } from '../api';
import { can, credentials, useAppState } from '../session';
import { useAction, useLoad } from '../ui/load';
import { pivotOf } from '../ui/paging';
import { fetchLists, PAGE_SIZE } from './lists.load';
import { ConfirmButton, ErrorText, fieldsOf, Loading, Page, Head } from '../ui/widgets';

interface MailingList {
  address: string;
  name: string;
  description: string;
  access_level: string;
  members_count: number;
  created_at: string;
}

interface Member {
  address: string;
  name: string;
  vars: Record<string, unknown>;
  subscribed: boolean;
}

interface Paged<T> {
  items: T[];
  paging: { next?: string };
}


/** A CSV's data rows: lines that are not blank, less a header naming `address`. */
function rowsOf(text: string): number {
  const lines = text.split(/\r?\n/).filter((line) => line.trim());
  return lines.length && /(^|,)\s*"?address"?\s*(,|$)/i.test(lines[0]!) ? lines.length - 1 : lines.length;
}

/** Bulk CSV upload: the bytes as they are sent, then the members written in the background as the list's count grows. */
function BulkUpload({ list, onDone }: { list: string; onDone: () => void }) {
  const [progress, setProgress] = useState<string>();
  const act = useAction();
  return (
    <div class="field">
      <label for="bulk-csv">Bulk upload (CSV)</label>
      <input
        id="bulk-csv"
        type="file"
        accept=".csv,text/csv"
        disabled={act.busy}
        onChange={(e) => {
          const input = e.target as HTMLInputElement;
          const file = input.files?.[0];
          if (!file) return;
          void act.run(async () => {
            const rows = rowsOf(await file.text());
            const before = (await call<{ list: MailingList }>(credentials(), 'GET', p`/v3/lists/${list}`)).list.members_count;
            const body = new FormData();
            body.append('members', file, file.name);
            body.append('upsert', 'yes');
            const reply = await uploadWithProgress<{ 'task-id'?: string; list: MailingList }>(credentials(), p`/v3/lists/${list}/members.csv`, body, (sent, total) =>
              setProgress(`Sending ${file.name}: ${total ? Math.round((sent / total) * 100) : 0}%`),
            );
            if (reply['task-id']) {
              // The API reports no task status: the list's member count shows the work as it is done.
              let count = reply.list.members_count;
              let still = 0;
              while (still < 5) {
                setProgress(`Writing ${rows} rows in the background: the list has ${count} members (${before} before).`);
                await new Promise((resolve) => setTimeout(resolve, 1000));
                const next = (await call<{ list: MailingList }>(credentials(), 'GET', p`/v3/lists/${list}`)).list.members_count;
                still = next === count ? still + 1 : 0;
                count = next;
                if (count - before >= rows) break;
              }
              setProgress(`Upload done: the list has ${count} members (${before} before, ${rows} rows sent).`);
            } else setProgress(`Upload done: the list has ${reply.list.members_count} members (${rows} rows sent).`);
            input.value = '';
            onDone();
          });
        }}
      />
      {progress ? (
        <p role="status" aria-live="polite">
          {progress}
        </p>
      ) : null}
      <ErrorText error={act.error} />
    </div>
  );
}

function MemberRow({ list, member, onChanged }: { list: string; member: Member; onChanged: () => void }) {
  const act = useAction();
  const [editing, setEditing] = useState(false);
  const writable = can('write');
  return (
    <tr>
      <td class="break">{member.address}</td>
      <td class="break">{member.name}</td>
      <td class="break mono">
        {editing ? (
          <form
            class="row"
            aria-label={`Variables of ${member.address}`}
            onSubmit={(e) => {
              e.preventDefault();
              const { vars } = fieldsOf(e.currentTarget);
              void act.run(async () => {
                await call(credentials(), 'PUT', p`/v3/lists/${list}/members/${member.address}`, { form: { vars: vars ?? '{}' } });
                setEditing(false);
                onChanged();
              });
            }}
          >
            <label for={`vars-${member.address}`}>Variables (JSON)</label>
            <input id={`vars-${member.address}`} name="vars" class="mono" defaultValue={JSON.stringify(member.vars ?? {})} />
            <button type="submit" class="small">
              Save
            </button>
          </form>
        ) : (
          JSON.stringify(member.vars ?? {})
        )}
        <ErrorText error={act.error} />
      </td>
      <td>{member.subscribed ? 'yes' : 'no'}</td>
      {writable ? (
        <td class="actions">
          <button type="button" class="small" aria-label={`Edit variables of ${member.address}`} onClick={() => setEditing(!editing)}>
            Edit vars
          </button>
          {member.subscribed ? (
            <button
              type="button"
              class="small"
              aria-label={`Unsubscribe ${member.address}`}
              onClick={() =>
                void act.run(async () => {
                  await call(credentials(), 'PUT', p`/v3/lists/${list}/members/${member.address}`, { form: { subscribed: 'no' } });
                  onChanged();
                })
              }
            >
              Unsubscribe
            </button>
          ) : null}
          <button
            type="button"
            class="small danger"
            aria-label={`Delete ${member.address}`}
            onClick={() =>
              void act.run(async () => {
                await call(credentials(), 'DELETE', p`/v3/lists/${list}/members/${member.address}`);
                onChanged();
              })
            }
          >
            Delete
          </button>
        </td>
      ) : null}
    </tr>
  );
}

function Members({ list, onChanged }: { list: string; onChanged: () => void }) {
  const [pivot, setPivot] = useState<Record<string, string>>({});
  const members = useLoad((signal) => call<Paged<Member>>(credentials(), 'GET', p`/v3/lists/${list}/members/pages`, { query: { limit: PAGE_SIZE, ...pivot }, signal }), [list, pivot]);
  const add = useAction();
  const writable = can('write');
  const changed = () => {
    members.reload();
    onChanged();
  };
  useEffect(() => setPivot({}), [list]);
  return (
    <section class="panel" aria-labelledby="members-h">
      <h2 id="members-h">Members of {list}</h2>
      {writable ? (
        <>
          <form
            class="row"
            aria-label="Add member"
            onSubmit={(e) => {
              e.preventDefault();
              const form = e.currentTarget;
              const { address, name, vars } = fieldsOf(form);
              void add.run(async () => {
                await call(credentials(), 'POST', p`/v3/lists/${list}/members`, { form: { address, name: name || undefined, vars: vars || undefined, upsert: 'yes' } });
                form.reset();
                changed();
              });
            }}
          >
            <div class="field grow">
              <label for="m-address">Member address</label>
              <input id="m-address" name="address" required autocomplete="off" />
            </div>
            <div class="field">
              <label for="m-name">Name</label>
              <input id="m-name" name="name" />
            </div>
            <div class="field">
              <label for="m-vars">Variables (JSON)</label>
              <input id="m-vars" name="vars" class="mono" placeholder='{"plan":"pro"}' />
            </div>
            <button type="submit" disabled={add.busy}>
              Add member
            </button>
          </form>
          <ErrorText error={add.error} />
          <BulkUpload list={list} onDone={changed} />
        </>
      ) : null}
      <ErrorText error={members.error} />
      {members.data ? (
        <>
          <div class="table-wrap" tabIndex={0}>
            <table>
              <Head columns={['Address', 'Name', 'Variables', 'Subscribed', writable && 'Actions']} />
              <tbody>
                {members.data.items.map((m) => (
                  <MemberRow key={m.address} list={list} member={m} onChanged={changed} />
                ))}
              </tbody>
            </table>
            {!members.data.items.length ? <p class="muted">No members.</p> : null}
          </div>
          <div class="pager">
            <button type="button" disabled={!pivot.page} onClick={() => setPivot({})}>
              First
            </button>
            <button type="button" disabled={members.data.items.length < PAGE_SIZE} onClick={() => setPivot(pivotOf(members.data!.paging.next) ?? {})}>
              Next
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}

export default function Lists() {
  const { region } = useAppState();
  const [pivot, setPivot] = useState<Record<string, string>>({});
  const lists = useLoad((signal) => fetchLists<Paged<MailingList>>({ limit: PAGE_SIZE, ...pivot }, signal), [pivot, region]);
  const [selected, setSelected] = useState<string>();
  const act = useAction();
  const writable = can('write');
  return (
    <Page title="Mailing lists">
      {writable ? (
        <form
          class="panel row"
          aria-label="Create mailing list"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const { address, name, access_level } = fieldsOf(form);
            void act.run(async () => {
              await call(credentials(), 'POST', '/v3/lists', { form: { address, name: name || undefined, access_level } });
              form.reset();
              lists.reload();
              setSelected(address!.toLowerCase());
            });
          }}
        >
          <div class="field grow">
            <label for="l-address">List address</label>
            <input id="l-address" name="address" required placeholder="news@mg.example.com" autocomplete="off" />
          </div>
          <div class="field">
            <label for="l-name">Name</label>
            <input id="l-name" name="name" />
          </div>
          <div class="field">
            <label for="l-access">Access level</label>
            <select id="l-access" name="access_level">
              <option value="readonly">readonly</option>
              <option value="members">members</option>
              <option value="everyone">everyone</option>
            </select>
          </div>
          <button type="submit" class="primary" disabled={act.busy}>
            Create list
          </button>
        </form>
      ) : null}
      <ErrorText error={lists.error ?? act.error} />
      {lists.loading && !lists.data ? <Loading what="mailing lists" /> : null}
      {lists.data ? (
        <>
          <div class="table-wrap" tabIndex={0}>
            <table>
              <Head columns={['Address', 'Name', 'Access', 'Members', writable && 'Delete']} />
              <tbody>
                {lists.data.items.map((l) => (
                  <tr key={l.address} class={l.address === selected ? 'selected' : ''}>
                    <td class="break">
                      <button type="button" class="small" aria-label={`Open list ${l.address}`} onClick={() => setSelected(l.address)}>
                        {l.address}
                      </button>
                    </td>
                    <td class="break">{l.name}</td>
                    <td>{l.access_level}</td>
                    <td>{l.members_count}</td>
                    {writable ? (
                      <td>
                        <ConfirmButton
                          class="danger small"
                          label={`Delete list ${l.address}`}
                          question={`Delete the list ${l.address} and its members?`}
                          confirmLabel="Delete list"
                          onConfirm={() =>
                            void act.run(async () => {
                              await call(credentials(), 'DELETE', p`/v3/lists/${l.address}`);
                              if (selected === l.address) setSelected(undefined);
                              lists.reload();
                            })
                          }
                        />
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
            {!lists.data.items.length ? <p class="muted">No mailing lists yet.</p> : null}
          </div>
          <div class="pager">
            <button type="button" disabled={!pivot.page} onClick={() => setPivot({})}>
              First
            </button>
            <button type="button" disabled={lists.data.items.length < PAGE_SIZE} onClick={() => setPivot(pivotOf(lists.data!.paging.next) ?? {})}>
              Next
            </button>
          </div>
        </>
      ) : null}
      {selected ? <Members key={selected} list={selected} onChanged={lists.reload} /> : null}
    </Page>
  );
}
