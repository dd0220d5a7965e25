import type { AddressInfo } from 'node:net';

// dns2 ships no types; this is the part of its API used here.
interface DnsPacket {
  header: { rcode: number };
  questions: Array<{ name: string; type: number }>;
  answers: unknown[];
}
interface Dns2 {
  Packet: { TYPE: Record<string, number>; CLASS: { IN: number }; createResponseFromRequest(request: DnsPacket): DnsPacket };
  createServer(options: { udp: boolean; handle(request: DnsPacket, send: (response: DnsPacket) => Promise<void> | void): void }): {
    on(event: 'error', listener: (error: Error) => void): void;
    listen(options: { udp: { port: number; address: string } }): Promise<void>;
    addresses(): { udp: AddressInfo };
    close(): Promise<void>;
  };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dns2 = require('dns2') as Dns2;

/** What a name holds. `undefined` from the zone function is NXDOMAIN. */
export interface ZoneEntry {
  /** IPv4 addresses (a DNSBL's listing answers, 127.0.0.x). */
  a?: string[];
  txt?: string[];
  mx?: Array<{ exchange: string; priority: number }>;
  cname?: string;
  /** Answer SERVFAIL for this name, as a broken upstream would. */
  servfail?: boolean;
  /** Answer REFUSED, as a resolver that will not serve the asker does. */
  refused?: boolean;
}

export type Zone = (name: string) => Promise<ZoneEntry | undefined> | ZoneEntry | undefined;

const RCODE = { SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

export interface DnsServer {
  /** `127.0.0.1:port`, as DNS_SERVERS takes it. */
  address: string;
  close(): Promise<void>;
}

/** An authoritative DNS server on loopback (UDP) answering A, TXT, MX and CNAME questions from `zone`. */
export async function startDnsServer(zone: Zone): Promise<DnsServer> {
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      if (!question) return void Promise.resolve(send(response)).catch(() => undefined);
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
      const answer = async (name: string, hops: number): Promise<void> => {
        const entry = await zone(name.toLowerCase().replace(/\.$/, ''));
        const owner = { ...base, name };
        if (!entry) response.header.rcode = RCODE.NXDOMAIN;
        else if (entry.servfail) response.header.rcode = RCODE.SERVFAIL;
        else if (entry.refused) response.header.rcode = RCODE.REFUSED;
        else if (question.type === Packet.TYPE.CNAME) {
          if (entry.cname) response.answers.push({ ...owner, type: Packet.TYPE.CNAME, domain: entry.cname });
        } else if (entry.cname) {
          // As a recursive resolver answers: the alias, then what its target holds (a delegated
          // DKIM selector is a CNAME to the authority's TXT record).
          response.answers.push({ ...owner, type: Packet.TYPE.CNAME, domain: entry.cname });
          if (hops < 8) await answer(entry.cname, hops + 1);
        } else if (question.type === Packet.TYPE.TXT) {
          // Long values (DKIM keys) go out as several 255-octet strings, as real zones hold them.
          for (const txt of entry.txt ?? []) response.answers.push({ ...owner, type: Packet.TYPE.TXT, data: txt.match(/.{1,255}/g) ?? [''] });
        } else if (question.type === Packet.TYPE.A) {
          for (const address of entry.a ?? []) response.answers.push({ ...owner, type: Packet.TYPE.A, address });
        } else if (question.type === Packet.TYPE.MX) {
          for (const mx of entry.mx ?? []) response.answers.push({ ...owner, type: Packet.TYPE.MX, ...mx });
        }
      };
      Promise.resolve()
        .then(() => answer(question.name, 0))
        .catch(() => {
          // The zone could not be read: say so rather than claim the name is absent.
          response.answers = [];
          response.header.rcode = RCODE.SERVFAIL;
        })
        .then(() => send(response))
        // A reply that cannot be sent (the asker is gone) is dropped, as a real server drops it.
        .catch(() => undefined);
    },
  });
  // A socket error must not take the host down; dns2 emits it as an event.
  server.on('error', (error) => process.stderr.write(`local DNS: ${error.message}\n`));
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  return { address: `127.0.0.1:${server.addresses().udp.port}`, close: () => server.close() };
}
