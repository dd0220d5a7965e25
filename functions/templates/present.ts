import { rfc1123 } from '../platform/dates';
import type { TemplateItem, VersionItem } from './template-store';

/**
 * The wire shapes of contract §11 and the OAS. Dates are RFC 1123 (mailgun-go decodes them as
 * RFC2822Time) and never null; `mjml` is always the empty string (the OAS marks it required, and
 * we have no MJML source to show).
 */
export function templateJson(template: TemplateItem) {
  return {
    name: template.name,
    description: template.description,
    createdAt: rfc1123(template.createdAt),
    createdBy: template.createdBy,
    id: template.id,
  };
}

/** A version; with `content` when the reply shows it (get, create, copy), without in lists. */
export function versionJson(version: VersionItem, template: Pick<TemplateItem, 'activeTag'>, content?: string) {
  return {
    tag: version.tag,
    ...(content !== undefined ? { template: content } : {}),
    engine: version.engine,
    mjml: '',
    createdAt: rfc1123(version.createdAt),
    comment: version.comment,
    active: version.tag === template.activeTag,
    id: version.id,
    headers: version.headers,
  };
}

/** What template update and delete replies name: the template, and no version (the OAS's templateUpdate). */
export function templateChangeJson(template: Pick<TemplateItem, 'name'>) {
  return { name: template.name, version: null };
}

/** What version update and delete replies name; mailgun.js reads `template.version.tag`. */
export function versionChangeJson(template: Pick<TemplateItem, 'name'>, version: Pick<VersionItem, 'tag'>) {
  return { name: template.name, version: { tag: version.tag } };
}
