import { z } from 'zod/v3';
import { storedMessage } from '../messages/message-store';
import { areaHandler, operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { storageRoutes } from './routes';
import { storedMessageJson } from './stored-message';

export const handler = areaHandler(storageRoutes, {
  getStoredMessage: operation(() => z.object({ domain: z.string(), storageKey: z.string() }), async (req, input) => {
    const { record, mime } = await storedMessage(req.accountId, input.domain, input.storageKey);
    if ((req.headers['accept'] ?? '').includes('message/rfc2822')) {
      return { 'body-mime': mime.toString('utf8'), recipients: record.recipients.join(', '), sender: record.from, from: record.from, subject: record.subject };
    }
    return storedMessageJson(record, mime, req.baseUrl);
  }),
}, { onBehalfOf });
