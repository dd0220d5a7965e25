import { z } from 'zod/v3';
import { findKey } from '../../keys/api-keys';
import { roles } from '../../platform/access';
import { NotFound } from '../../platform/errors';
import { areaHandler, operation } from '../../platform/http/pipeline';
import { onBehalfOf } from '../../accounts/on-behalf-of';
import { oneOfValues, schema } from '../../platform/http/params';
import { skipLimitInput } from '../../platform/http/paging';
import { userRoutes } from './routes';
import { findUser, listUsers } from '../../accounts/user-store';
import { userJson } from './present';

const listInput = schema(() =>
  z.object({
    role: oneOfValues(roles).optional(),
    ...skipLimitInput(100, 1000),
  }),
);
const userInput = schema(() => z.object({ user_id: z.string() }));

const noSuchUser = () => new NotFound('No such user exists');

export const handler = areaHandler(userRoutes, {
  listUsers: operation(listInput, async (req, input) => {
    const users = (await listUsers(req.accountId)).filter((user) => !input.role || user.role === input.role);
    return { users: users.slice(input.skip, input.skip + input.limit).map(userJson), total: users.length };
  }),

  getUser: operation(userInput, async (req, input) => {
    const user = await findUser(req.accountId, input.user_id);
    if (!user) throw noSuchUser();
    return userJson(user);
  }),

  getCurrentUser: operation(() => z.object({}).passthrough(), async (req) => {
    // The calling key's user, in the account it belongs to (not one acted on through the header).
    const key = await findKey(req.principal.accountId, req.principal.keyId);
    const user = key?.userId ? await findUser(key.accountId, key.userId) : undefined;
    if (!user) throw noSuchUser();
    return userJson(user);
  }),
}, { onBehalfOf });
