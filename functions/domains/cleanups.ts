import { removeDomainCredentials } from '../credentials/credentials';
import { clearDomainLists } from '../suppressions/sending';
import { clearDomainTags } from '../tags/tag-store';
import { deleteAllTemplates } from '../templates/templates';
import { clearDomainHooks } from '../webhooks/webhook-store';
import type { DomainCleanup } from './domains';

/**
 * Each area's cleanup of a deleted domain, run one after another before the domain's own items go
 * (its SES identity first, its DKIM keys, rotation entry, item and name after), as the event
 * consumers are listed in functions/event-stream/handler.ts: an area that keeps something per
 * domain adds its step here. Its events expire on their own.
 */
export const DOMAIN_CLEANUPS: readonly DomainCleanup[] = [
  { name: 'templates', clean: deleteAllTemplates },
  { name: 'suppressions', clean: clearDomainLists },
  { name: 'tags', clean: clearDomainTags },
  { name: 'webhooks', clean: clearDomainHooks },
  { name: 'credentials', clean: removeDomainCredentials },
];
