import { withEnv } from '../../../functions/platform/env';
import { eventShard, eventWrites, mergeShards, newEvent } from '../../../functions/events/event-store';

// EVENT_SHARDS (docs/capacity.md): unset, an event's keys are exactly the unsharded layout deployed
// tables hold; set, an event's shard is a hash of its id, the same for every writer.
const AT = Date.UTC(2026, 10, 28, 13, 5, 7, 123);
const event = { ...newEvent('delivered', { recipient: 'r@x.example' }, AT), id: 'AbCdEfGhIjKlMnOpQrStUv' };

const withShards = <T>(value: string | undefined, fn: () => T): T => withEnv({ TABLE_NAME: 't', ...(value === undefined ? {} : { EVENT_SHARDS: value }) }, fn);

describe('event keys', () => {
  it('are the unsharded keys, byte for byte, with one shard (the default)', () => {
    const expected = { pk: 'ACCT#acct1#EVT#mg.example.com#20261128', sk: '1795871107123#AbCdEfGhIjKlMnOpQrStUv', gsi1pk: 'ACCT#acct1#LOG#2026112813', gsi1sk: '1795871107123#AbCdEfGhIjKlMnOpQrStUv' };
    expect(withShards(undefined, () => eventWrites('acct1', 'mg.example.com', [event])[0]!.key)).toEqual(expected);
    expect(withShards('1', () => eventWrites('acct1', 'mg.example.com', [event])[0]!.key)).toEqual(expected);
  });

  it('put an event in shard hash(id) mod N: shard 0 unsuffixed, others `#s<k>` on both partitions, the sort key unchanged', () => {
    const ids = Array.from({ length: 400 }, (_, i) => `id${i}`);
    const shards = ids.map((id) => eventShard(id, 4));
    expect(new Set(shards)).toEqual(new Set([0, 1, 2, 3]));
    for (const count of [0, 1, 2, 3].map((k) => shards.filter((s) => s === k).length)) expect(count).toBeGreaterThan(60);
    expect(ids.map((id) => eventShard(id, 4))).toEqual(shards);
    expect(eventShard('anything', 1)).toBe(0);
    for (const id of ['id0', 'id1', 'id2', 'id3', 'id4', 'id5']) {
      const key = withShards('4', () => eventWrites('acct1', 'mg.example.com', [{ ...event, id }])[0]!.key);
      const k = eventShard(id, 4);
      const suffix = k === 0 ? '' : `#s${k}`;
      expect(key).toEqual({ pk: `ACCT#acct1#EVT#mg.example.com#20261128${suffix}`, sk: `1795871107123#${id}`, gsi1pk: `ACCT#acct1#LOG#2026112813${suffix}`, gsi1sk: `1795871107123#${id}` });
    }
  });

  it('merge shard pages by sort key in either order, to the limit', () => {
    const pages = [[{ sk: '1#a' }, { sk: '4#d' }], [{ sk: '2#b' }], [], [{ sk: '3#c' }, { sk: '5#e' }]];
    expect(mergeShards(pages, true, 4).map((r) => r.sk)).toEqual(['1#a', '2#b', '3#c', '4#d']);
    const down = pages.map((page) => [...page].reverse());
    expect(mergeShards(down, false, 3).map((r) => r.sk)).toEqual(['5#e', '4#d', '3#c']);
  });
});
