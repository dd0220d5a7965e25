import { requireDomain } from '../domains/domain-store';
import { pivotPaging } from '../platform/http/paging';
import { areaHandler, operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { templateChangeJson, templateJson, versionChangeJson, versionJson } from './present';
import { templateRoutes } from './routes';
import {
  copyVersionInput,
  createTemplateInput,
  createVersionInput,
  domainInput,
  getTemplateInput,
  listTemplatesInput,
  listVersionsInput,
  templateInput,
  updateTemplateInput,
  updateVersionInput,
  versionInput,
} from './schemas';
import { templatesPage, versionsPage, type TemplateItem } from './template-store';
import {
  activeVersionOf,
  addVersion,
  changeVersion,
  copyVersion,
  createTemplate,
  DEFAULT_TAG,
  deleteAllTemplates,
  deleteTemplate,
  deleteVersion,
  requireTemplate,
  requireVersion,
  updateDescription,
  withContent,
} from './templates';

/** The template with its active version (content included) when it has one: `active=yes`. */
async function withActiveVersion(template: TemplateItem) {
  const active = await activeVersionOf(template);
  return { ...templateJson(template), ...(active ? { version: versionJson(active.version, template, active.content) } : {}) };
}

const templatesPath = (domain: string) => `/v3/${domain}/templates`;
const versionsPath = (domain: string, name: string) => `${templatesPath(domain)}/${encodeURIComponent(name)}/versions`;

export const handler = areaHandler(templateRoutes, {
  listTemplates: operation(listTemplatesInput, async (req, input) => {
    await requireDomain(req.accountId, input.domain);
    const templates = await templatesPage(req.accountId, input.domain, input);
    // mailgun-go asks for the active versions with `active=yes`, and keeps asking page after page.
    const items = input.active ? await Promise.all(templates.map(withActiveVersion)) : templates.map(templateJson);
    const names = templates.map((template) => template.name);
    const extra = { active: input.active ? 'yes' : undefined };
    return { items, paging: pivotPaging(req.baseUrl, templatesPath(input.domain), 'p', input, names, extra) };
  }),

  createTemplate: operation(createTemplateInput, async (req, input) => {
    await requireDomain(req.accountId, input.domain);
    // The version fields count only with content, as Mailgun documents ("valid only if ... template is provided").
    const version = input.template === undefined ? undefined : { tag: input.tag ?? DEFAULT_TAG, content: input.template, comment: input.comment, headers: input.headers };
    const created = await createTemplate(req.accountId, input.domain, { name: input.name, description: input.description, createdBy: input.createdBy, version });
    const { template } = created;
    return {
      message: 'template has been stored',
      template: { ...templateJson(template), ...(created.version ? { version: versionJson(created.version.version, template, created.version.content) } : {}) },
    };
  }),

  deleteAllTemplates: operation(domainInput, async (req, input) => {
    await requireDomain(req.accountId, input.domain);
    await deleteAllTemplates(req.accountId, input.domain);
    return { message: 'templates have been deleted' };
  }),

  getTemplate: operation(getTemplateInput, async (req, input) => {
    await requireDomain(req.accountId, input.domain);
    const template = await requireTemplate(req.accountId, input.domain, input.name);
    return { template: input.active ? await withActiveVersion(template) : templateJson(template) };
  }),

  updateTemplate: operation(updateTemplateInput, async (req, input) => {
    await requireDomain(req.accountId, input.domain);
    const template = await requireTemplate(req.accountId, input.domain, input.name);
    await updateDescription(template, input.description);
    return { message: 'template has been updated', template: templateChangeJson(template) };
  }),

  deleteTemplate: operation(templateInput, async (req, input) => {
    await requireDomain(req.accountId, input.domain);
    const template = await requireTemplate(req.accountId, input.domain, input.name);
    await deleteTemplate(template);
    return { message: 'template has been deleted', template: templateChangeJson(template) };
  }),

  listVersions: operation(listVersionsInput, async (req, input) => {
    await requireDomain(req.accountId, input.domain);
    const template = await requireTemplate(req.accountId, input.domain, input.name);
    const versions = await versionsPage(template, input);
    const tags = versions.map((version) => version.tag);
    return {
      template: { ...templateJson(template), versions: versions.map((version) => versionJson(version, template)) },
      paging: pivotPaging(req.baseUrl, versionsPath(input.domain, template.name), 'p', input, tags),
    };
  }),

  createVersion: operation(createVersionInput, async (req, input) => {
    await requireDomain(req.accountId, input.domain);
    const template = await requireTemplate(req.accountId, input.domain, input.name);
    const added = await addVersion(template, { tag: input.tag, content: input.template, comment: input.comment, headers: input.headers, active: input.active });
    return {
      message: 'new version of the template has been stored',
      template: { ...templateJson(added.template), version: versionJson(added.version, added.template, added.content) },
    };
  }),

  getVersion: operation(versionInput, async (req, input) => {
    await requireDomain(req.accountId, input.domain);
    const template = await requireTemplate(req.accountId, input.domain, input.name);
    const { version, content } = await withContent(template, await requireVersion(template, input.tag));
    return { template: { ...templateJson(template), version: versionJson(version, template, content) } };
  }),

  updateVersion: operation(updateVersionInput, async (req, input) => {
    await requireDomain(req.accountId, input.domain);
    const template = await requireTemplate(req.accountId, input.domain, input.name);
    const version = await requireVersion(template, input.tag);
    await changeVersion(template, version, { content: input.template, comment: input.comment, headers: input.headers, active: input.active });
    return { message: 'version has been updated', template: versionChangeJson(template, version) };
  }),

  deleteVersion: operation(versionInput, async (req, input) => {
    await requireDomain(req.accountId, input.domain);
    const template = await requireTemplate(req.accountId, input.domain, input.name);
    const version = await requireVersion(template, input.tag);
    await deleteVersion(template, version);
    return { message: 'version has been deleted', template: versionChangeJson(template, version) };
  }),

  copyVersion: operation(copyVersionInput, async (req, input) => {
    await requireDomain(req.accountId, input.domain);
    const template = await requireTemplate(req.accountId, input.domain, input.name);
    const source = await requireVersion(template, input.tag);
    const { version, content } = await copyVersion(template, source, input.new_tag, input.comment);
    const copied = versionJson(version, template, content);
    // The OAS names the copy `version`, and keeps it under the deprecated `template` as well.
    return { message: 'version has been copied', version: copied, template: copied };
  }),
}, { onBehalfOf });
