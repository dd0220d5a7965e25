import { NotFound } from '../platform/errors';
import { pivotPaging } from '../platform/http/paging';
import { areaHandler, operation } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { csvEntries, jsonEntries, upload } from './bulk';
import { allLists, getMember, listPage, memberPage, membersAfter, countMatching } from './list-store';
import { addMember, changeMember, createList, removeList, removeMember, requireList, updateList } from './lists';
import { listJson, memberJson } from './present';
import { listRoutes } from './routes';
import {
  bulkCsvInput,
  bulkJsonInput,
  createListInput,
  createMemberInput,
  listPagesInput,
  listPath,
  listsInput,
  memberPagesInput,
  memberPath,
  membersInput,
  updateListInput,
  updateMemberInput,
} from './schemas';

const memberNotFound = (member: string, list: string) => new NotFound(`Member ${member} of mailing list ${list} not found`);

export const handler = areaHandler(listRoutes, {
  listPages: operation(listPagesInput, async (req, page) => {
    const items = await listPage(req.accountId, page);
    return { items: items.map(listJson), paging: pivotPaging(req.baseUrl, '/v3/lists/pages', 'address', page, items.map((list) => list.address)) };
  }),

  // Lists are few (made by hand), so skip/limit and the address filter read them all.
  listLists: operation(listsInput, async (req, input) => {
    const all = (await allLists(req.accountId)).filter((list) => input.address === undefined || list.address === input.address);
    return { total_count: all.length, items: all.slice(input.skip, input.skip + input.limit).map(listJson) };
  }),

  createList: operation(createListInput, async (req, input) => ({ message: 'Mailing list has been created', list: listJson(await createList(req.accountId, input)) })),

  getList: operation(listPath, async (req, input) => ({ list: listJson(await requireList(req.accountId, input.list)) })),

  // The path's {list} is the list to change; `address` in the form is its new address.
  updateList: operation(updateListInput, async (req, input) => ({ message: 'Mailing list has been updated', list: listJson(await updateList(req.accountId, input.list, input)) })),

  deleteList: operation(listPath, async (req, input) => {
    await removeList(req.accountId, input.list);
    return { address: input.list, message: 'Mailing list has been removed' };
  }),

  memberPages: operation(memberPagesInput, async (req, input) => {
    const list = await requireList(req.accountId, input.list);
    const items = await memberPage(list, input, input.subscribed);
    const path = `/v3/lists/${encodeURIComponent(list.address)}/members/pages`;
    const filter = input.subscribed === undefined ? {} : { subscribed: input.subscribed ? 'yes' : 'no' };
    return { items: items.map(memberJson), paging: pivotPaging(req.baseUrl, path, 'address', input, items.map((m) => m.address), filter) };
  }),

  listMembers: operation(membersInput, async (req, input) => {
    const list = await requireList(req.accountId, input.list);
    if (input.address !== undefined) {
      const member = await getMember(list, input.address);
      const items = member && (input.subscribed === undefined || member.subscribed === input.subscribed) ? [member] : [];
      return { total_count: items.length, items: items.slice(input.skip, input.skip + input.limit).map(memberJson) };
    }
    // A key range read from the start: skip costs its own length, as limit is at most 100.
    const items = (await membersAfter(list, undefined, input.skip + input.limit, input.subscribed)).slice(input.skip);
    const total = input.subscribed === undefined ? list.membersCount : await countMatching(list, input.subscribed);
    return { total_count: total, items: items.map(memberJson) };
  }),

  createMember: operation(createMemberInput, async (req, input) => {
    const list = await requireList(req.accountId, input.list);
    return { member: memberJson(await addMember(list, input, input.upsert)), message: 'Mailing list member has been created' };
  }),

  getMember: operation(memberPath, async (req, input) => {
    const list = await requireList(req.accountId, input.list);
    const member = await getMember(list, input.member);
    if (!member) throw memberNotFound(input.member, list.address);
    return { member: memberJson(member) };
  }),

  updateMember: operation(updateMemberInput, async (req, input) => {
    const list = await requireList(req.accountId, input.list);
    const member = await changeMember(list, input.member, input);
    if (!member) throw memberNotFound(input.member, list.address);
    return { member: memberJson(member), message: 'Mailing list member has been updated' };
  }),

  deleteMember: operation(memberPath, async (req, input) => {
    const list = await requireList(req.accountId, input.list);
    if (!(await removeMember(list, input.member))) throw memberNotFound(input.member, list.address);
    return { member: { address: input.member }, message: 'Mailing list member has been deleted' };
  }),

  uploadJson: operation(bulkJsonInput, async (req, input) => {
    const list = await requireList(req.accountId, input.list);
    return uploadReply(req.accountId, list.address, await upload(list, jsonEntries(input.members), input.upsert));
  }),

  uploadCsv: operation(bulkCsvInput, async (req, input) => {
    const list = await requireList(req.accountId, input.list);
    const file = req.files.find((part) => part.field === 'members');
    return uploadReply(req.accountId, list.address, await upload(list, csvEntries(file, input.subscribed), input.upsert));
  }),
}, { onBehalfOf });

/** The list as it stands after the upload (members_count included), and the task's id when it runs in the background. */
async function uploadReply(accountId: string, address: string, outcome: { taskId?: string }) {
  const list = listJson(await requireList(accountId, address));
  return outcome.taskId ? { list, 'task-id': outcome.taskId, message: 'Mailing list upload started in background' } : { list, message: 'Mailing list has been updated' };
}
