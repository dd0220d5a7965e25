import { mapLimit } from '../platform/concurrency';
import { BadRequest, Conflict, NotFound } from '../platform/errors';
import {
  findTemplate,
  findVersion,
  insertTemplate,
  insertVersion,
  newTemplateId,
  newVersionId,
  patchTemplate,
  patchVersion,
  readContent,
  removeContent,
  removeTemplate,
  removeVersion,
  templatesOf,
  versionsOf,
  writeContent,
  type TemplateHeaders,
  type TemplateItem,
  type VersionItem,
} from './template-store';

/** Mailgun's limits: 100 templates per domain (its sending docs), 40 versions per template (the spec). */
const MAX_TEMPLATES_PER_DOMAIN = 100;
const MAX_VERSIONS_PER_TEMPLATE = 40;
/** The tag of a version created along with its template when the caller names none. */
export const DEFAULT_TAG = 'initial';

/** Deleting all of a domain's templates works on this many at once. */
const DELETE_CONCURRENCY = 5;

export interface NewVersion {
  tag: string;
  content: string;
  comment?: string;
  headers?: TemplateHeaders;
  /** Make it the active version (the first version of a template always is). */
  active?: boolean;
}

/** A version together with its content, as replies that show the content need it. */
export interface VersionWithContent {
  version: VersionItem;
  content: string;
}

export async function requireTemplate(accountId: string, domain: string, name: string): Promise<TemplateItem> {
  const template = await findTemplate(accountId, domain, name);
  if (!template) throw new NotFound('template not found');
  return template;
}

export async function requireVersion(template: TemplateItem, tag: string): Promise<VersionItem> {
  const version = await findVersion(template, tag);
  if (!version) throw new NotFound('template version not found');
  return version;
}

export async function withContent(template: TemplateItem, version: VersionItem): Promise<VersionWithContent> {
  const content = await readContent(template, version.contentId);
  // The version was deleted or changed between the two reads.
  if (content === undefined) throw new NotFound('template version not found');
  return { version, content };
}

/** The active version with its content, or undefined when the template has none. */
export async function activeVersionOf(template: TemplateItem): Promise<VersionWithContent | undefined> {
  if (!template.activeTag) return undefined;
  const version = await findVersion(template, template.activeTag);
  return version ? withContent(template, version) : undefined;
}

function versionItem(template: TemplateItem, spec: NewVersion, contentId: string, now: string): VersionItem {
  return {
    accountId: template.accountId,
    domain: template.domain,
    templateId: template.id,
    templateName: template.name,
    tag: spec.tag,
    id: newVersionId(),
    engine: 'handlebars',
    comment: spec.comment ?? '',
    headers: spec.headers ?? {},
    contentId,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Stores a template, and its first (active) version when content is given. The version is written
 * before the template item, which carries `activeTag` from its first write: the template appears
 * complete or not at all.
 */
export async function createTemplate(
  accountId: string,
  domain: string,
  spec: { name: string; description?: string; createdBy?: string; version?: NewVersion },
): Promise<{ template: TemplateItem; version?: VersionWithContent }> {
  const existing = await templatesOf(accountId, domain);
  if (existing.some((template) => template.name === spec.name)) throw new Conflict(`template ${spec.name} already exists`);
  if (existing.length >= MAX_TEMPLATES_PER_DOMAIN) throw new BadRequest(`a domain stores at most ${MAX_TEMPLATES_PER_DOMAIN} templates`);

  const now = new Date().toISOString();
  const template: TemplateItem = {
    accountId,
    domain,
    name: spec.name,
    id: newTemplateId(),
    description: spec.description ?? '',
    createdBy: spec.createdBy ?? '',
    createdAt: now,
    ...(spec.version ? { activeTag: spec.version.tag } : {}),
  };
  let version: VersionWithContent | undefined;
  if (spec.version) {
    const contentId = await writeContent(template, spec.version.content);
    const item = versionItem(template, spec.version, contentId, now);
    // The partition belongs to a template id made a moment ago: the tag cannot be taken.
    await insertVersion(template, item);
    version = { version: item, content: spec.version.content };
  }
  if (!(await insertTemplate(template))) {
    // Another request created the name first; what we wrote sits under our unused template id.
    if (version) await removeVersion(template, version.version);
    throw new Conflict(`template ${spec.name} already exists`);
  }
  return { template, version };
}

/** The description is all a template update changes (names are permanent, as in Mailgun). */
export async function updateDescription(template: TemplateItem, description: string | undefined): Promise<TemplateItem> {
  if (description === undefined) throw new BadRequest('No fields are provided to update');
  return patchTemplate(template, { description });
}

export async function deleteTemplate(template: TemplateItem): Promise<void> {
  await removeTemplate(template);
}

/** Deletes every template of a domain with its versions; answers how many templates went. */
export async function deleteAllTemplates(accountId: string, domain: string): Promise<number> {
  const templates = await templatesOf(accountId, domain);
  await mapLimit(templates, DELETE_CONCURRENCY, removeTemplate);
  return templates.length;
}

/** Adds a version: its tag must be new, the template must have room, and the first version becomes active. */
export async function addVersion(template: TemplateItem, spec: NewVersion): Promise<{ template: TemplateItem } & VersionWithContent> {
  const versions = await versionsOf(template);
  if (versions.some((version) => version.tag === spec.tag)) throw new Conflict(`version ${spec.tag} already exists`);
  if (versions.length >= MAX_VERSIONS_PER_TEMPLATE) throw new BadRequest(`a template stores at most ${MAX_VERSIONS_PER_TEMPLATE} versions`);

  const contentId = await writeContent(template, spec.content);
  const version = versionItem(template, spec, contentId, new Date().toISOString());
  if (!(await insertVersion(template, version))) {
    await removeContent(template, contentId);
    throw new Conflict(`version ${spec.tag} already exists`);
  }
  const activate = versions.length === 0 || spec.active === true;
  const updated = activate ? await patchTemplate(template, { activeTag: spec.tag }) : template;
  return { template: updated, version, content: spec.content };
}

export interface VersionChanges {
  content?: string;
  comment?: string;
  headers?: TemplateHeaders;
  /**
   * true makes the version active. false changes nothing: a version stops being active only when
   * another one becomes active (or it is deleted), so a template never loses its active version
   * by accident.
   */
  active?: boolean;
}

/**
 * Gives a version new content: the content goes to a new item, one write repoints the version (with
 * `edits`), then the old content goes. Readers see the old version or the new one, never a mix.
 */
async function repointVersion(
  template: TemplateItem,
  version: VersionItem,
  content: string,
  edits: Partial<Pick<VersionItem, 'comment' | 'headers' | 'engine' | 'updatedAt'>>,
): Promise<VersionItem> {
  const contentId = await writeContent(template, content);
  let updated: VersionItem;
  try {
    updated = await patchVersion(template, version, { ...edits, contentId });
  } catch (error) {
    await removeContent(template, contentId);
    throw error;
  }
  await removeContent(template, version.contentId);
  return updated;
}

/** Changes what is given and keeps the rest. */
export async function changeVersion(template: TemplateItem, version: VersionItem, changes: VersionChanges): Promise<VersionItem> {
  const { content, comment, headers, active } = changes;
  if (content === undefined && comment === undefined && headers === undefined && active === undefined) {
    throw new BadRequest('No fields are provided to update');
  }
  let updated = version;
  const edits = { ...(comment !== undefined ? { comment } : {}), ...(headers !== undefined ? { headers } : {}), updatedAt: new Date().toISOString() };
  if (content !== undefined) updated = await repointVersion(template, version, content, edits);
  else if (comment !== undefined || headers !== undefined) updated = await patchVersion(template, version, edits);
  if (active) await patchTemplate(template, { activeTag: version.tag });
  return updated;
}

/**
 * Deletes a version. Deleting the active one is allowed: no source says Mailgun refuses it, and
 * mailgun-go's mock server and the OAS-generated double simply delete it. The template is then
 * left without an active version, and sends must name one (`t:version`) until another is
 * activated: no other version is promoted behind the caller's back.
 */
export async function deleteVersion(template: TemplateItem, version: VersionItem): Promise<void> {
  if (template.activeTag === version.tag) await patchTemplate(template, { activeTag: undefined });
  await removeVersion(template, version);
}

/**
 * Copies a version's content, engine and headers to `newTag`. An existing `newTag` is overwritten
 * (Mailgun: "If the version name already exists, it will be overridden") and keeps its id and
 * whether it is active; a new one counts against the 40-version limit and starts inactive. The
 * comment is the one given, else the source's.
 */
export async function copyVersion(
  template: TemplateItem,
  source: VersionItem,
  newTag: string,
  comment: string | undefined,
): Promise<VersionWithContent> {
  const { content } = await withContent(template, source);
  const copied = { comment: comment ?? source.comment, headers: source.headers, engine: source.engine };
  const target = await findVersion(template, newTag);
  if (target) {
    const version = await repointVersion(template, target, content, { ...copied, updatedAt: new Date().toISOString() });
    return { version, content };
  }
  // A new tag is an ordinary new version; with its source beside it, it is never the first, so never active.
  const { version } = await addVersion(template, { tag: newTag, content, comment: copied.comment, headers: copied.headers });
  return { version, content };
}
