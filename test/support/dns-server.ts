import type { AddressInfo } from 'node:net';

// dns2 ships no types; this is the part of its API the tests use.
interface DnsPacket {
  header: { rcode: number };
  questions: Array<{ name: string; type: number }>;
  answers: unknown[];
}
interface Dns2 {
  Packet: { TYPE: Record<string, number>; CLASS: { IN: number }; createResponseFromRequest(request: DnsPacket): DnsPacket };
  createServer(options: { udp: boolean; handle(request: DnsPacket, send: (response: DnsPacket) => void): void }): {
    listen(options: { udp: { port: number; address: string } }): Promise<void>;
    addresses(): { udp: AddressInfo };
    close(): Promise<void>;
  };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dns2 = require('dns2') as Dns2;

export interface Zone {
  txt?: string[];
  mx?: Array<{ exchange: string; priority: number }>;
  cname?: string;
  /** Answer SERVFAIL for this name, as a broken upstream would. */
  servfail?: boolean;
}

/** An authoritative-looking DNS server on loopback whose records the test edits as it goes. */
export async function startDnsServer() {
  const zones = new Map<string, Zone>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle(request, send) {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0]!;
      const name = question.name.toLowerCase();
      const zone = zones.get(name);
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
      if (!zone) response.header.rcode = 3; // NXDOMAIN
      else if (zone.servfail) response.header.rcode = 2;
      else if (question.type === Packet.TYPE.TXT) {
        // Long values (DKIM keys) go out as several 255-octet strings, as real zones hold them.
        for (const txt of zone.txt ?? []) response.answers.push({ ...base, type: Packet.TYPE.TXT, data: txt.match(/.{1,255}/g) });
      } else if (question.type === Packet.TYPE.MX) {
        for (const mx of zone.mx ?? []) response.answers.push({ ...base, type: Packet.TYPE.MX, ...mx });
      } else if (question.type === Packet.TYPE.CNAME && zone.cname) {
        response.answers.push({ ...base, type: Packet.TYPE.CNAME, domain: zone.cname });
      }
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const { port } = server.addresses().udp;
  return {
    address: `127.0.0.1:${port}`,
    set(name: string, zone: Zone) {
      zones.set(name.toLowerCase(), { ...zones.get(name.toLowerCase()), ...zone });
    },
    close: () => server.close(),
  };
}
