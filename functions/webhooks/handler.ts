import { areaHandler, operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import {
  createAccountWebhook,
  deleteAccountWebhook,
  deleteAccountWebhooks,
  getAccountWebhook,
  listAccountWebhooks,
  replaceAccountWebhook,
} from './account-webhooks';
import { addUrlToTypes, createHook, deleteHook, getHook, listHooks, parseName, removeUrls, replaceUrlTypes, updateHook } from './domain-webhooks';
import { requireDomain } from '../domains/domain-store';
import { webhookRoutes } from './routes';
import {
  accountWebhookIdInput,
  accountWebhookInput,
  createV3Input,
  deleteAccountWebhooksInput,
  domainInput,
  listAccountWebhooksInput,
  namedInput,
  noInput,
  replaceAccountWebhookInput,
  testInput,
  updateV3Input,
  v4ChangeInput,
  v4DeleteInput,
} from './schemas';
import { rotateSigningKey, signingKey } from './signing-key';
import { testWebhook } from './webhook-test';

export const handler = areaHandler(webhookRoutes, {
  listDomainWebhooks: operation(domainInput, (req, input) => listHooks(req.accountId, input.domain)),
  createDomainWebhook: operation(createV3Input, (req, input) => createHook(req.accountId, input.domain, input.id, input.url)),
  getDomainWebhook: operation(namedInput, (req, input) => getHook(req.accountId, input.domain, input.name)),
  updateDomainWebhook: operation(updateV3Input, (req, input) => updateHook(req.accountId, input.domain, input.name, input.url)),
  deleteDomainWebhook: operation(namedInput, (req, input) => deleteHook(req.accountId, input.domain, input.name)),
  testDomainWebhook: operation(testInput, async (req, input) => {
    const domain = (await requireDomain(req.accountId, input.domain)).name;
    return testWebhook(req.accountId, domain, parseName(input.name), input.url);
  }),
  addWebhookUrl: operation(v4ChangeInput, (req, input) => addUrlToTypes(req.accountId, input.domain, input.url, input.event_types)),
  replaceWebhookUrl: operation(v4ChangeInput, (req, input) => replaceUrlTypes(req.accountId, input.domain, input.url, input.event_types)),
  removeWebhookUrls: operation(v4DeleteInput, (req, input) => removeUrls(req.accountId, input.domain, input.url)),
  listAccountWebhooks: operation(listAccountWebhooksInput, (req, input) => listAccountWebhooks(req.accountId, input.webhook_ids)),
  createAccountWebhook: operation(accountWebhookInput, (req, input) => createAccountWebhook(req.accountId, input)),
  deleteAccountWebhooks: operation(deleteAccountWebhooksInput, (req, input) => deleteAccountWebhooks(req.accountId, input.webhook_ids, input.all)),
  getAccountWebhook: operation(accountWebhookIdInput, (req, input) => getAccountWebhook(req.accountId, input.id)),
  replaceAccountWebhook: operation(replaceAccountWebhookInput, (req, input) => replaceAccountWebhook(req.accountId, input.id, input)),
  deleteAccountWebhook: operation(accountWebhookIdInput, (req, input) => deleteAccountWebhook(req.accountId, input.id)),
  getSigningKey: operation(noInput, async (req) => ({ http_signing_key: await signingKey(req.accountId) })),
  rotateSigningKey: operation(noInput, async (req) => ({
    message: 'regenerated HTTP signing key for account',
    http_signing_key: await rotateSigningKey(req.accountId),
  })),
}, { onBehalfOf });
