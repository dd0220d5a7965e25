import { z } from 'zod/v3';
import { schema } from '../platform/http/params';
import { areaHandler, operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { Reply } from '../platform/http/reply';
import { certificateStatus, startCertificateJob } from './certificates';
import { initiatedJson, statusJson } from './present';
import { certificateRoutes } from './routes';

const hostInput = schema(() => z.object({ domain: z.string() }));

export const handler = areaHandler(certificateRoutes, {
  // 202 with where to poll, as Mailgun answers (mailgun-go takes 202 for success).
  generate: operation(hostInput, async (req, input) => new Reply(202, initiatedJson(await startCertificateJob(req.accountId, input.domain, 'generate')))),
  regenerate: operation(hostInput, async (req, input) => new Reply(202, initiatedJson(await startCertificateJob(req.accountId, input.domain, 'regenerate')))),
  status: operation(hostInput, async (req, input) => statusJson(await certificateStatus(req.accountId, input.domain))),
}, { onBehalfOf });
