/**
 * Every entity of the single table: importing this registers each store's key shapes and queries
 * (functions/data/key-registry.ts). The tests prove from it that no two entities can produce the
 * same key, and docs/access-patterns.md is written from it. A store that calls defineEntity is
 * listed here (a test holds that).
 */
import './lists/list-store';

export { accessPatternTable, keyCollisions, queryIntrusions, registeredItems, registeredQueries } from './data/key-registry';
