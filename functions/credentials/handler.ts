import { requireDomain } from '../domains/domain-store';
import { BadRequest } from '../platform/errors';
import { areaHandler, operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { changePassword, createCredentials, deleteAllCredentials, deleteCredential, GENERATED_NOTE, listCredentials } from './credentials';
import { credentialJson } from './present';
import { credentialRoutes } from './routes';
import { changePasswordInput, createCredentialsInput, credentialPathInput, listCredentialsInput, MAX_CREDENTIALS_PAGE } from './schemas';

export const handler = areaHandler(credentialRoutes, {
  listCredentials: operation(listCredentialsInput, async (req, input) => {
    if (input.limit > MAX_CREDENTIALS_PAGE) throw new BadRequest(`Limit parameter can't be larger than ${MAX_CREDENTIALS_PAGE}`);
    const domain = await requireDomain(req.accountId, input.name);
    const { total, items } = await listCredentials(domain, input.skip, input.limit);
    return { total_count: total, items: items.map(credentialJson) };
  }),

  createCredentials: operation(createCredentialsInput, async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    const created = await createCredentials(domain, { logins: [...input.login, ...input.mailbox], passwords: input.password, system: input.system });
    const message = `Created ${created.count} credentials pair(s)`;
    // A generated password is shown here once; only its hash is kept.
    return Object.keys(created.generated).length ? { message, note: GENERATED_NOTE, credentials: created.generated } : { message };
  }),

  changePassword: operation(changePasswordInput, async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    const { login, generated } = await changePassword(domain, input.spec, input.password);
    return generated === undefined ? { message: 'Password changed' } : { message: 'Password changed', note: GENERATED_NOTE, credentials: { [login]: generated } };
  }),

  deleteCredential: operation(credentialPathInput, async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    const spec = await deleteCredential(domain, input.spec);
    return { message: 'Credentials have been deleted', spec };
  }),

  deleteAllCredentials: operation(() => credentialPathInput().pick({ name: true }), async (req, input) => {
    const domain = await requireDomain(req.accountId, input.name);
    const count = await deleteAllCredentials(domain);
    return { message: 'All domain credentials have been deleted', count };
  }),
}, { onBehalfOf });
