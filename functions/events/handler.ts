import { z } from 'zod/v3';
import { requireDomain } from '../domains/domain-store';
import { env } from '../platform/env';
import { withStorageUrl } from '../messages/storage-url';
import { absoluteUrl } from '../platform/http/paging';
import { areaHandler, operation, type ApiRequest } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { readEvents } from './event-store';
import { matches } from './filters';
import { cursorFromQuery, decodeCursor, encodeCursor, listEventsInput, parsedFilters, type EventsCursor } from './query';
import { eventRoutes } from './routes';

async function page(req: ApiRequest, domain: string, cursor: EventsCursor) {
  await requireDomain(req.accountId, domain);
  const filters = parsedFilters(cursor);
  // A backward page reads against the listing's order from its position, then shows in order.
  const reading = cursor.backward ? !cursor.ascending : cursor.ascending;
  const found = await readEvents(req.accountId, domain, {
    from: cursor.from,
    to: cursor.to ?? Date.now(),
    ascending: reading,
    after: cursor.position,
    limit: cursor.limit,
    keep: (data) => matches(filters, data),
  });
  if (cursor.backward) found.reverse();
  const url = (next: EventsCursor) => absoluteUrl(req.baseUrl, `/v3/${domain}/events/${encodeCursor(next)}`);
  const base = { ...cursor, backward: undefined, position: undefined };
  const firstKey = found[0]?.sk;
  const lastKey = found.at(-1)?.sk;
  return {
    items: found.map((item) => withStorageUrl(item.data, req.baseUrl, domain)),
    paging: {
      // At either end the position stays, so following the link yields an empty page.
      next: url({ ...base, position: lastKey ?? (cursor.backward ? undefined : cursor.position) }),
      previous: url({ ...base, backward: true, position: firstKey ?? (cursor.backward ? cursor.position : undefined) }),
      first: url(base),
      last: url({ ...base, backward: true }),
    },
  };
}

export const handler = areaHandler(eventRoutes, {
  listEvents: operation(() => listEventsInput().extend({ domain: z.string() }), async (req, input) =>
    page(req, input.domain.toLowerCase(), cursorFromQuery(input, env().EVENT_TTL_DAYS)),
  ),
  eventsPage: operation(() => z.object({ domain: z.string(), token: z.string() }), async (req, input) =>
    page(req, input.domain.toLowerCase(), decodeCursor(input.token)),
  ),
}, { onBehalfOf });
