import { z } from 'zod/v3';
import { skipLimitInput } from '../../platform/http/paging';

/** Images, accessibility and image optimisation lists: `limit` up to 1000, 100 by default; `skip` (contract §0). */
const MAX_PAGE = 1000;
export const listPageInput = () => z.object(skipLimitInput(100, MAX_PAGE));
