import { useEffect, useMemo, useState } from 'preact/hooks';
import { call, p } from '../api';
import { can, credentials, useAppState } from '../session';
import { renderPreview } from '../template-preview';
import { DomainPicker } from '../ui/domain-picker';
import { useAction, useLoad } from '../ui/load';
import { fetchTemplates } from './templates.load';
import { HtmlFrame } from '../ui/message-view';
import { ConfirmButton, ErrorText, fieldsOf, Loading, Page, Head } from '../ui/widgets';

interface Template {
  name: string;
  description: string;
  createdAt: string;
}

interface Version {
  tag: string;
  template?: string;
  active: boolean;
  comment: string;
  createdAt: string;
}

const SAMPLE = '{\n  "name": "Ada",\n  "items": [{ "title": "Notebook", "price": "12.00" }]\n}';

function parseVariables(json: string): { value?: unknown; error?: string } {
  try {
    return { value: json.trim() ? JSON.parse(json) : {} };
  } catch (error) {
    return { error: `Sample variables are not JSON: ${(error as Error).message}` };
  }
}

/** The Handlebars source, sample variables as JSON, and the preview they render to as you type. */
function Editor({ domain, name, version, onSaved }: { domain: string; name: string; version: Version; onSaved: () => void }) {
  const [source, setSource] = useState(version.template ?? '');
  const [variables, setVariables] = useState(SAMPLE);
  const save = useAction();
  const [saved, setSaved] = useState<string>();
  useEffect(() => setSource(version.template ?? ''), [version.tag, version.template]);
  const sample = useMemo(() => parseVariables(variables), [variables]);
  const preview = useMemo(() => (sample.error ? { error: sample.error } : renderPreview(source, sample.value)), [source, sample]);
  const writable = can('write');
  return (
    <section class="panel" aria-labelledby="editor-h">
      <h3 id="editor-h">
        Version {version.tag}
        {version.active ? ' (active)' : ''}
      </h3>
      <div class="split">
        <div class="field">
          <label for="t-source">Template source</label>
          <textarea id="t-source" class="mono" rows={14} value={source} readOnly={!writable} onInput={(e) => setSource((e.target as HTMLTextAreaElement).value)} spellcheck={false} />
          <label for="t-vars">Sample variables (JSON)</label>
          <textarea id="t-vars" class="mono" rows={6} value={variables} onInput={(e) => setVariables((e.target as HTMLTextAreaElement).value)} spellcheck={false} />
        </div>
        <div>
          <h4 id="preview-h">Preview</h4>
          {preview.error ? (
            <p class="error" role="alert">
              {preview.error}
            </p>
          ) : (
            <HtmlFrame html={preview.output ?? ''} title="Template preview" />
          )}
        </div>
      </div>
      {writable ? (
        <div class="actions">
          <button
            type="button"
            class="primary"
            disabled={save.busy}
            onClick={() =>
              void save.run(async () => {
                await call(credentials(), 'PUT', p`/v3/${domain}/templates/${name}/versions/${version.tag}`, { form: { template: source } });
                setSaved(`Version ${version.tag} saved.`);
                onSaved();
              })
            }
          >
            Save version
          </button>
          <form
            class="row"
            aria-label="Save as new version"
            onSubmit={(e) => {
              e.preventDefault();
              const { tag } = fieldsOf(e.currentTarget);
              void save.run(async () => {
                await call(credentials(), 'POST', p`/v3/${domain}/templates/${name}/versions`, { form: { tag, template: source } });
                setSaved(`Version ${tag ?? ''} created.`);
                onSaved();
              });
            }}
          >
            <div class="field">
              <label for="t-newtag">New version tag</label>
              <input id="t-newtag" name="tag" required size={12} />
            </div>
            <button type="submit" disabled={save.busy}>
              Save as new version
            </button>
          </form>
        </div>
      ) : null}
      <ErrorText error={save.error} />
      {saved && !save.error ? <p role="status">{saved}</p> : null}
    </section>
  );
}

function TemplateDetail({ domain, name, onDeleted }: { domain: string; name: string; onDeleted: () => void }) {
  const versions = useLoad((signal) => call<{ template: { versions: Version[] } }>(credentials(), 'GET', p`/v3/${domain}/templates/${name}/versions`, { query: { limit: 100 }, signal }), [domain, name]);
  const [tag, setTag] = useState<string>();
  const list = versions.data?.template.versions ?? [];
  const chosen = tag ?? list.find((v) => v.active)?.tag ?? list[0]?.tag;
  const version = useLoad((signal) => (chosen ? call<{ template: { version: Version } }>(credentials(), 'GET', p`/v3/${domain}/templates/${name}/versions/${chosen}`, { signal }) : Promise.resolve(undefined)), [domain, name, chosen]);
  const act = useAction();
  const writable = can('write');
  const reload = () => {
    versions.reload();
    version.reload();
  };
  return (
    <section aria-labelledby="template-h">
      <div class="page-head">
        <h2 id="template-h">Template {name}</h2>
        {writable ? (
          <div class="actions">
            <ConfirmButton
              label="Delete template"
              question={`Delete the template ${name} and all its versions?`}
              confirmLabel="Delete template"
              onConfirm={() =>
                void act.run(async () => {
                  await call(credentials(), 'DELETE', p`/v3/${domain}/templates/${name}`);
                  onDeleted();
                })
              }
            />
          </div>
        ) : null}
      </div>
      <ErrorText error={versions.error ?? version.error ?? act.error} />
      <div class="table-wrap" tabIndex={0}>
        <table>
          <caption class="muted">Versions</caption>
          <Head columns={['Tag', 'Active', 'Comment', 'Created', 'Actions']} />
          <tbody>
            {list.map((v) => (
              <tr key={v.tag} class={v.tag === chosen ? 'selected' : ''}>
                <td>{v.tag}</td>
                <td>{v.active ? 'yes' : 'no'}</td>
                <td class="break">{v.comment}</td>
                <td>{v.createdAt}</td>
                <td class="actions">
                  <button type="button" class="small" aria-label={`Edit version ${v.tag}`} onClick={() => setTag(v.tag)}>
                    Edit
                  </button>
                  {writable ? (
                    <>
                      {!v.active ? (
                        <button
                          type="button"
                          class="small"
                          aria-label={`Activate version ${v.tag}`}
                          onClick={() =>
                            void act.run(async () => {
                              await call(credentials(), 'PUT', p`/v3/${domain}/templates/${name}/versions/${v.tag}`, { form: { active: 'yes' } });
                              reload();
                            })
                          }
                        >
                          Activate
                        </button>
                      ) : null}
                      <button
                        type="button"
                        class="small"
                        aria-label={`Copy version ${v.tag}`}
                        onClick={() => {
                          const copy = `${v.tag}-copy`;
                          void act.run(async () => {
                            await call(credentials(), 'PUT', p`/v3/${domain}/templates/${name}/versions/${v.tag}/copy/${copy}`);
                            setTag(copy);
                            reload();
                          });
                        }}
                      >
                        Copy
                      </button>
                      <button
                        type="button"
                        class="small danger"
                        aria-label={`Delete version ${v.tag}`}
                        onClick={() =>
                          void act.run(async () => {
                            await call(credentials(), 'DELETE', p`/v3/${domain}/templates/${name}/versions/${v.tag}`);
                            setTag(undefined);
                            reload();
                          })
                        }
                      >
                        Delete
                      </button>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {version.data ? <Editor key={`${name}-${version.data.template.version.tag}`} domain={domain} name={name} version={version.data.template.version} onSaved={reload} /> : null}
    </section>
  );
}

function TemplatesOf({ domain }: { domain: string }) {
  const templates = useLoad((signal) => fetchTemplates<{ items: Template[] }>(domain, signal), [domain]);
  const [selected, setSelected] = useState<string>();
  const create = useAction();
  return (
    <>
      <ErrorText error={templates.error} />
      {templates.loading && !templates.data ? <Loading what="templates" /> : null}
      {templates.data ? (
        <div class="table-wrap" tabIndex={0}>
          <table>
            <caption class="muted">Templates of {domain}</caption>
            <Head columns={['Name', 'Description', 'Created']} />
            <tbody>
              {templates.data.items.map((t) => (
                <tr key={t.name} class={t.name === selected ? 'selected' : ''}>
                  <td>
                    <button type="button" class="small" onClick={() => setSelected(t.name)} aria-label={`Open template ${t.name}`}>
                      {t.name}
                    </button>
                  </td>
                  <td class="break">{t.description}</td>
                  <td>{t.createdAt}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {!templates.data.items.length ? <p class="muted">No templates yet.</p> : null}
        </div>
      ) : null}
      {can('write') ? (
        <details class="panel">
          <summary>Create template</summary>
          <form
            class="stack"
            aria-label="Create template"
            onSubmit={(e) => {
              e.preventDefault();
              const form = e.currentTarget;
              const { name, description, template, tag } = fieldsOf(form);
              void create.run(async () => {
                await call(credentials(), 'POST', p`/v3/${domain}/templates`, { form: { name, description, template, tag: tag || undefined } });
                form.reset();
                templates.reload();
                setSelected(name!.toLowerCase());
              });
            }}
          >
            <div class="field">
              <label for="nt-name">Name</label>
              <input id="nt-name" name="name" required autocomplete="off" />
            </div>
            <div class="field">
              <label for="nt-description">Description</label>
              <input id="nt-description" name="description" />
            </div>
            <div class="field">
              <label for="nt-tag">First version tag</label>
              <input id="nt-tag" name="tag" placeholder="initial" />
            </div>
            <div class="field">
              <label for="nt-template">Template source</label>
              <textarea id="nt-template" name="template" class="mono" rows={6} required defaultValue={'<p>Hello {{name}}</p>'} />
            </div>
            <div class="actions">
              <button type="submit" class="primary" disabled={create.busy}>
                Create template
              </button>
            </div>
            <ErrorText error={create.error} />
          </form>
        </details>
      ) : null}
      {selected ? <TemplateDetail key={selected} domain={domain} name={selected} onDeleted={() => (setSelected(undefined), templates.reload())} /> : null}
    </>
  );
}

export default function Templates() {
  const { domain } = useAppState();
  return (
    <Page title="Templates">
      <DomainPicker />
      {domain ? <TemplatesOf key={domain} domain={domain} /> : null}
    </Page>
  );
}
