import { requireDomain } from '../domains/domain-store';
import { BadRequest, NotFound } from '../platform/errors';
import { pivotPaging } from '../platform/http/paging';
import { validate } from '../platform/http/params';
import { areaHandler, operation, type ApiRequest, type Operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { addEntries } from './add-entries';
import { importCsv } from './csv-import';
import { LIST_TEXTS, type SuppressionList } from './lists';
import { entryJson } from './present';
import { suppressionRoutes } from './routes';
import { batchOf, deleteEntryInput, domainInput, entryInput, listInput, RECORD_SCHEMAS } from './schemas';
import { clearList, deleteEntry, getEntry, listPage, putEntry, toItem, type EntryRecord } from './suppression-store';
import { addBounce, addComplaint } from './sending';
import { addUnsubscribe, removeUnsubscribeTag } from './unsubscribes';

type Verb = 'list' | 'get' | 'create' | 'import' | 'delete' | 'clear';

/** One record from a form (or a JSON object): the reply names what was added. */
async function addOne(req: ApiRequest, domain: string, record: EntryRecord) {
  const { addedOne } = LIST_TEXTS[record.list];
  switch (record.list) {
    case 'bounces':
      if (!(await addBounce(req.accountId, domain, { ...record, createdAt: new Date(record.createdAt) }))) {
        throw new BadRequest(`${record.address} is on the allowlist: it cannot be added to the bounces table`);
      }
      break;
    case 'unsubscribes':
      await addUnsubscribe(req.accountId, domain, record.address, record.tags, new Date(record.createdAt));
      break;
    case 'whitelists':
      await putEntry(toItem(req.accountId, domain, record));
      return { message: addedOne, type: record.type, value: record.address };
    case 'complaints':
      await addComplaint(req.accountId, domain, { address: record.address, createdAt: new Date(record.createdAt) });
      break;
  }
  return { message: addedOne, address: record.address };
}

function verbsOf(list: SuppressionList): Record<Verb, Operation> {
  const texts = LIST_TEXTS[list];
  return {
    list: operation(listInput, async (req, input) => {
      await requireDomain(req.accountId, input.domain);
      const items = await listPage(req.accountId, input.domain, list, input, input.term);
      const path = `/v3/${input.domain}/${list}`;
      const addresses = items.map((item) => item.address);
      return { items: items.map(entryJson), paging: pivotPaging(req.baseUrl, path, 'address', input, addresses, { term: input.term }) };
    }),

    get: operation(entryInput, async (req, input) => {
      await requireDomain(req.accountId, input.domain);
      const item = await getEntry(req.accountId, input.domain, list, input.address);
      if (!item) throw new NotFound(texts.notFound);
      return entryJson(item);
    }),

    // A JSON array is a batch (mailgun.js sends bounces and complaints that way, even one);
    // anything else is one record in form fields, read without the path parameters: the
    // allowlist's `domain` field names the domain to allow, not the list's owner.
    create: operation(domainInput, async (req, { domain }) => {
      await requireDomain(req.accountId, domain);
      if (!Array.isArray(req.json)) return addOne(req, domain, validate(RECORD_SCHEMAS[list](), req.params));
      if (list === 'whitelists') throw new BadRequest('The allowlist takes one address or domain per request, as form fields');
      const count = await addEntries(req.accountId, domain, validate(batchOf(list), req.json));
      return { message: texts.addedMany(count) };
    }),

    import: operation(domainInput, async (req, { domain }) => {
      await requireDomain(req.accountId, domain);
      await importCsv(req.accountId, domain, list, req.files.find((file) => file.field === 'file'));
      return { message: 'file uploaded successfully' };
    }),

    delete: operation(deleteEntryInput, async (req, input) => {
      await requireDomain(req.accountId, input.domain);
      if (list === 'unsubscribes' && input.tag !== undefined) {
        const outcome = await removeUnsubscribeTag(req.accountId, input.domain, input.address, input.tag);
        if (outcome === 'no-entry') throw new NotFound(texts.notFound);
        if (outcome === 'no-tag') throw new NotFound('Unsubscribe event for this tag does not exist');
      } else {
        if (!(await deleteEntry(req.accountId, input.domain, list, input.address))) throw new NotFound(texts.notFound);
      }
      return list === 'whitelists' ? { message: texts.removedOne, value: input.address } : { message: texts.removedOne, address: input.address };
    }),

    clear: operation(domainInput, async (req, input) => {
      await requireDomain(req.accountId, input.domain);
      await clearList(req.accountId, input.domain, list);
      return { message: texts.removedAll };
    }),
  };
}

/** The list's operations under their route names (`bounces.list`, ...). */
function operationsOf<const L extends SuppressionList>(list: L): Record<`${L}.${Verb}`, Operation> {
  return Object.fromEntries(Object.entries(verbsOf(list)).map(([verb, op]) => [`${list}.${verb}`, op])) as Record<`${L}.${Verb}`, Operation>;
}

export const handler = areaHandler(suppressionRoutes, {
  ...operationsOf('bounces'),
  ...operationsOf('complaints'),
  ...operationsOf('unsubscribes'),
  ...operationsOf('whitelists'),
}, { onBehalfOf });
