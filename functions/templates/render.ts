import { BadRequest } from '../platform/errors';
import { compileHtml, compileText, type Renderer } from './handlebars-dialect';
import {
  findTemplate,
  findVersion,
  readContent,
  TEMPLATE_HEADER_NAMES,
  type TemplateHeaderName,
  type TemplateHeaders,
  type TemplateItem,
  type VersionItem,
} from './template-store';
import { textFromHtml } from './text-part';

export interface RenderOptions {
  /** The version's tag (`t:version`); the active version when absent. */
  version?: string;
  /** Template variables (`t:variables`, `h:X-Mailgun-Variables`, `v:` fields), already merged by the caller. */
  variables: Record<string, unknown>;
  /** `t:text=yes`: also produce a text/plain part from the rendered HTML. */
  text?: boolean;
}

export interface RenderedTemplate {
  html: string;
  text?: string;
  /** The version's stored headers, rendered; headers given with the message override them. */
  headers: TemplateHeaders;
  /** The tag of the version that was rendered. */
  version: string;
}

interface CompiledVersion {
  html: Renderer;
  headers: Array<[TemplateHeaderName, Renderer]>;
}

/**
 * Compiled versions of this warm Lambda, least recently used first. A key names one state of one
 * version: template id (a re-created template has a new one), tag, `updatedAt` (bumped by every
 * change, headers included) and `contentId` (new with every content change, so even two changes
 * in the same millisecond never share an entry). Stale entries are never hit again and age out.
 * A hundred versions of at most 100 KB each bound the cache to tens of MB in the worst case.
 */
const MAX_CACHED_VERSIONS = 100;
const compiled = new Map<string, CompiledVersion>();

function cacheKey(template: TemplateItem, version: VersionItem): string {
  return [template.id, version.tag, version.updatedAt, version.contentId].join('\u0000');
}

function cached(key: string): CompiledVersion | undefined {
  const entry = compiled.get(key);
  if (entry) {
    compiled.delete(key);
    compiled.set(key, entry);
  }
  return entry;
}

function remember(key: string, entry: CompiledVersion): void {
  compiled.set(key, entry);
  if (compiled.size > MAX_CACHED_VERSIONS) compiled.delete(compiled.keys().next().value!);
}

async function compiledVersion(template: TemplateItem, version: VersionItem): Promise<CompiledVersion> {
  const key = cacheKey(template, version);
  const hit = cached(key);
  if (hit) return hit;
  const content = await readContent(template, version.contentId);
  // The version changed or went between our two reads; the sender may retry.
  if (content === undefined) throw new BadRequest('template version not found');
  const entry: CompiledVersion = {
    html: compileHtml(content),
    headers: TEMPLATE_HEADER_NAMES.flatMap((name) => {
      const value = version.headers[name];
      return value === undefined ? [] : [[name, compileText(value)] as [TemplateHeaderName, Renderer]];
    }),
  };
  remember(key, entry);
  return entry;
}

/**
 * Renders a stored template for a message, as Mailgun does at delivery: the named version or the
 * active one, HTML-escaping `{{x}}` and not `{{{x}}}`, missing variables as empty strings, stored
 * headers rendered with the same variables (header values are plain text, not escaped). With
 * `text`, the text/plain part is the rendered HTML converted to text (see text-part.ts).
 *
 * An unknown template or version, or a template without an active version, is a 400 the messages
 * endpoint can pass on as it is.
 */
export async function renderTemplate(accountId: string, domain: string, name: string, options: RenderOptions): Promise<RenderedTemplate> {
  const template = await findTemplate(accountId, domain.toLowerCase(), name.trim().toLowerCase());
  if (!template) throw new BadRequest('template not found');
  const tag = options.version?.trim().toLowerCase() || template.activeTag;
  if (!tag) throw new BadRequest(`template ${template.name} has no active version`);
  const version = await findVersion(template, tag);
  if (!version) throw new BadRequest('template version not found');
  const { html: renderHtml, headers: headerRenderers } = await compiledVersion(template, version);

  try {
    const html = renderHtml(options.variables);
    const headers: TemplateHeaders = {};
    // A variable holding a line break must not start a header of its own.
    for (const [header, render] of headerRenderers) headers[header] = render(options.variables).replace(/[\r\n]+/g, ' ').trim();
    return { html, ...(options.text ? { text: textFromHtml(html) } : {}), headers, version: version.tag };
  } catch (error) {
    throw new BadRequest(`template ${template.name} could not be rendered: ${(error as Error).message.split('\n')[0]}`);
  }
}
