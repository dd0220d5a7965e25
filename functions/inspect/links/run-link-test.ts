import { webhookAddressPolicy } from '../../webhooks/url-policy';
import { htmlOfStoredSource } from '../common/fetch-html';
import type { TestRunner } from '../common/run-outcome';
import type { StoredSource } from '../common/source-input';
import { checkLinks, type LinkInput, type LinkResult } from './link-checker';
import { extractLinks } from './link-extractor';
import { COMPLETED, MAX_LINKS } from './link-limits';

/** What a link test stores as its input: the links given, or the email to take them from. */
export type LinkTestInput = ({ links: LinkInput[] } | StoredSource) & { userAgent?: string | null };

const expiredCertificate = (result: LinkResult) => result.failures.some((f) => f.id === 'ssl_certificate_check' && /expired/i.test(f.rule));

/**
 * One run: every link checked through the SSRF-safe client under the webhooks' address policy,
 * results in the order of the links. The summary feeds the list's filters without reading results.
 */
export const runLinkTest: TestRunner = async (_test, input) => {
  const stored = input as LinkTestInput;
  const links = 'links' in stored ? stored.links : extractLinks(await htmlOfStoredSource(stored)).slice(0, MAX_LINKS);
  const results = await checkLinks(links, { userAgent: stored.userAgent ?? null, policy: webhookAddressPolicy() });
  const summary = {
    count: results.length,
    invalid: results.filter((r) => r.status !== 'Valid').length,
    statusCodes: [...new Set(results.map((r) => r.status_code).filter((code): code is number => typeof code === 'number'))],
    expiredSsl: results.some(expiredCertificate),
  };
  return { status: COMPLETED, result: { results }, summary, usage: { metric: 'link_validation', failed: false } };
};
