import { z } from 'zod/v3';
import { sandboxDomainOf } from '../../domains/sandbox-domain';
import { env } from '../../platform/env';
import { BadRequest, NotFound } from '../../platform/errors';
import { isAddress } from '../../messages/recipients';
import { boundedText, MAX_LENGTH, schema, text } from '../../platform/http/params';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { noticePage } from '../../platform/http/public-page';
import { activateSandboxRecipient, addSandboxRecipient, listSandboxRecipients, removeSandboxRecipient } from '../../accounts/sandbox-recipients';
import { mailConfirmation } from '../../accounts/sandbox-confirmation';
import { sandboxRecipientJson } from './present';
import { sandboxRoutes } from './routes';

export const handler = areaHandler(sandboxRoutes, {
  listSandboxRecipients: operation(() => z.object({}).passthrough(), async (req) => ({
    recipients: (await listSandboxRecipients(req.accountId)).map(sandboxRecipientJson),
  })),

  addSandboxRecipient: operation(schema(() => z.object({ email: boundedText(MAX_LENGTH.address).refine(isAddress, { message: 'must be a valid email address' }) })), async (req, input) => {
    const sandbox = await sandboxDomainOf(req.accountId);
    if (!sandbox) throw new BadRequest('This account has no sandbox domain');
    const { recipient, token } = await addSandboxRecipient(req.accountId, input.email);
    if (token) await mailConfirmation(sandbox, recipient.email, `${env().PUBLIC_API_URL ?? req.baseUrl}/v5/sandbox/auth_recipients/confirm/${token}`);
    return { recipient: sandboxRecipientJson(recipient) };
  }),

  deleteSandboxRecipient: operation(schema(() => z.object({ email: z.string() })), async (req, input) => {
    await removeSandboxRecipient(req.accountId, input.email);
    return { message: 'Sandbox recipient deleted.' };
  }),

  confirmSandboxRecipient: operation(schema(() => z.object({ token: text() })), async (_req, input) => {
    const activated = await activateSandboxRecipient(input.token);
    // As every public route answers an unknown credential: a JSON 404.
    if (!activated) throw new NotFound('This confirmation link is unknown, has expired, or its address was removed from the authorized recipients');
    return noticePage('You are an authorized recipient', `${activated.email} will now receive the test messages of this sandbox domain.`);
  }),
}, { onBehalfOf });
