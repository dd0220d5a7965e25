import { mapLimit } from '../platform/concurrency';
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { deleteItem, getItem, putItem, queryAll, updateItem, type Key } from '../data/store';
import { NotFound } from '../platform/errors';
import type { PivotPage } from '../platform/http/paging';
import { readPivotPage } from '../data/pivot-page';
import { defineEntity } from '../data/key-registry';

/**
 * Templates and their versions in the single table.
 *
 * Versions live under the template's id, not its name: a template deleted and created again under
 * the same name starts with an empty partition even if an interrupted delete left items behind.
 *
 * A version's content (up to 100 KB) is a separate, immutable item that the version points to by
 * `contentId`. Lists, the version count and every send read the small metadata items only; the
 * content is read when a client asks for it, or when a Lambda compiles the version for the first
 * time (compiled versions are cached by `contentId`, see render.ts). Changing the content writes a
 * new content item, repoints the version, then deletes the old item, so a reader never sees half
 * of a change. Which version is active is one attribute of the template item (`activeTag`):
 * switching is a single write, with no second item to clear.
 */
export const templateKeys = defineEntity(
  'templates',
  {
    template: { what: 'one template (API, and every templated send)', pk: 'ACCT#<account>#TPL#<domain>', sk: 'TPL#<name*>', key: (accountId: string, domain: string, name = ''): Key => ({ pk: `ACCT#${accountId}#TPL#${domain}`, sk: `TPL#${name}` }) },
    version: { what: "one version's metadata (API, every send)", pk: 'ACCT#<account>#TPL#<domain>#<template id>', sk: 'VER#<tag*>', key: (template: TemplateRef, tag = ''): Key => ({ pk: versionPartition(template), sk: `VER#${tag}` }) },
    content: { what: "one version's content", pk: 'ACCT#<account>#TPL#<domain>#<template id>', sk: 'SRC#<content id>', key: (template: TemplateRef, contentId: string): Key => ({ pk: versionPartition(template), sk: `SRC#${contentId}` }) },
  },
  [
    { what: "a domain's templates, name order (pages; all of them to count or delete)", pk: 'ACCT#<account>#TPL#<domain>', skPrefix: 'TPL#' },
    { what: "a template's versions, tag order (pages; all of them for the 40-limit and delete)", pk: 'ACCT#<account>#TPL#<domain>#<template id>', skPrefix: 'VER#', reads: ['version'] },
  ],
);

type TemplateRef = Pick<TemplateItem, 'accountId' | 'domain' | 'id'>;

function versionPartition(template: TemplateRef): string {
  return `ACCT#${template.accountId}#TPL#${template.domain}#${template.id}`;
}

/** The headers a version may carry into the messages it renders (Mailgun supports these three). */
export const TEMPLATE_HEADER_NAMES = ['From', 'Subject', 'Reply-To'] as const;
export type TemplateHeaderName = (typeof TEMPLATE_HEADER_NAMES)[number];
export type TemplateHeaders = Partial<Record<TemplateHeaderName, string>>;

export interface TemplateItem {
  accountId: string;
  /** The sending domain, lower-case. */
  domain: string;
  /** Lower-case, as Mailgun stores it. */
  name: string;
  /** UUID, as Mailgun's template ids. */
  id: string;
  description: string;
  createdBy: string;
  /** ISO 8601; rendered RFC 1123 on the wire. */
  createdAt: string;
  /** The version sends use when they name none; absent when the template has no active version. */
  activeTag?: string;
}

export interface VersionItem {
  accountId: string;
  domain: string;
  templateId: string;
  templateName: string;
  /** Lower-case, unique within the template. */
  tag: string;
  /** UUID. */
  id: string;
  engine: 'handlebars';
  comment: string;
  headers: TemplateHeaders;
  /** The content item this version currently points to; a new id on every content change. */
  contentId: string;
  createdAt: string;
  /** Bumped by every change to the version: part of the compiled-version cache key. */
  updatedAt: string;
}

export interface ContentItem {
  contentId: string;
  template: string;
}

/** DynamoDB writes in flight at once while deleting many items. */
const DELETE_CONCURRENCY = 25;


// Templates

export function newTemplateId(): string {
  return randomUUID();
}

export async function findTemplate(accountId: string, domain: string, name: string): Promise<TemplateItem | undefined> {
  return getItem<TemplateItem>(templateKeys.template(accountId, domain, name), { consistent: true });
}

/** Stores a new template; false when the domain already has one by that name. */
export async function insertTemplate(template: TemplateItem): Promise<boolean> {
  return putItem(templateKeys.template(template.accountId, template.domain, template.name), template, { ifAbsent: true });
}

/** Changes a template's attributes (undefined removes one); NotFound if it was deleted meanwhile. */
export async function patchTemplate(template: TemplateItem, changes: Partial<Pick<TemplateItem, 'description' | 'activeTag'>>): Promise<TemplateItem> {
  try {
    return await updateItem<TemplateItem>(templateKeys.template(template.accountId, template.domain, template.name), changes);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new NotFound('template not found');
    throw error;
  }
}

export async function templatesOf(accountId: string, domain: string): Promise<TemplateItem[]> {
  const { pk, sk } = templateKeys.template(accountId, domain);
  return queryAll<TemplateItem>({ pk }, sk);
}

/** One page of a domain's templates in name order (style-A paging on `p`). */
export async function templatesPage(accountId: string, domain: string, page: PivotPage): Promise<TemplateItem[]> {
  const { pk, sk } = templateKeys.template(accountId, domain);
  return readPivotPage<TemplateItem>(pk, sk, page);
}

/** Deletes a template and everything under it: versions first, so an interrupted delete can be retried. */
export async function removeTemplate(template: TemplateItem): Promise<void> {
  const versions = await versionsOf(template);
  await mapLimit(versions, DELETE_CONCURRENCY, (version) => removeVersion(template, version));
  await deleteItem(templateKeys.template(template.accountId, template.domain, template.name));
}

// Versions

export function newVersionId(): string {
  return randomUUID();
}

export async function findVersion(template: TemplateRef, tag: string): Promise<VersionItem | undefined> {
  return getItem<VersionItem>(templateKeys.version(template, tag), { consistent: true });
}

/** Every version's metadata (at most 40 small items), in tag order. */
export async function versionsOf(template: TemplateRef): Promise<VersionItem[]> {
  const { pk, sk } = templateKeys.version(template);
  return queryAll<VersionItem>({ pk }, sk);
}

/** One page of a template's versions in tag order (style-A paging on `p`). */
export async function versionsPage(template: TemplateRef, page: PivotPage): Promise<VersionItem[]> {
  const { pk, sk } = templateKeys.version(template);
  return readPivotPage<VersionItem>(pk, sk, page);
}

export async function readContent(template: TemplateRef, contentId: string): Promise<string | undefined> {
  return (await getItem<ContentItem>(templateKeys.content(template, contentId), { consistent: true }))?.template;
}

/** Stores content under a fresh id, to be pointed at by a version. */
export async function writeContent(template: TemplateRef, content: string): Promise<string> {
  const contentId = randomUUID();
  await putItem(templateKeys.content(template, contentId), { contentId, template: content } satisfies ContentItem);
  return contentId;
}

export async function removeContent(template: TemplateRef, contentId: string): Promise<void> {
  await deleteItem(templateKeys.content(template, contentId));
}

/** Stores a new version whose content is already written; false when the tag is taken. */
export async function insertVersion(template: TemplateRef, version: VersionItem): Promise<boolean> {
  return putItem(templateKeys.version(template, version.tag), version, { ifAbsent: true });
}

export async function patchVersion(
  template: TemplateRef,
  version: VersionItem,
  changes: Partial<Pick<VersionItem, 'comment' | 'headers' | 'contentId' | 'engine' | 'updatedAt'>>,
): Promise<VersionItem> {
  try {
    return await updateItem<VersionItem>(templateKeys.version(template, version.tag), changes);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new NotFound('template version not found');
    throw error;
  }
}

/** Deletes a version's metadata, then its content (a send holding the metadata finds no content and says so). */
export async function removeVersion(template: TemplateRef, version: VersionItem): Promise<void> {
  await deleteItem(templateKeys.version(template, version.tag));
  await removeContent(template, version.contentId);
}

