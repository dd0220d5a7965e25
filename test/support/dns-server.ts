import { startDnsServer as startServer, type ZoneEntry } from '../../lib/local/dns-server';

export type Zone = ZoneEntry;

/** An authoritative-looking DNS server on loopback whose records the test edits as it goes. */
export async function startDnsServer() {
  const zones = new Map<string, Zone>();
  const server = await startServer((name) => zones.get(name));
  return {
    address: server.address,
    set(name: string, zone: Zone) {
      zones.set(name.toLowerCase(), { ...zones.get(name.toLowerCase()), ...zone });
    },
    /** The name no longer exists: NXDOMAIN. */
    delete(name: string) {
      zones.delete(name.toLowerCase());
    },
    close: () => server.close(),
  };
}
