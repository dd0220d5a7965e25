import { BlockList, isIP } from 'node:net';

/**
 * Which IP addresses a webhook may never reach: anything inside the platform's own network or the
 * cloud's metadata service, so a customer's URL cannot make the platform a proxy into it (SSRF).
 * IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4, compatible) are judged by the IPv4
 * address they carry.
 *
 * The one relaxation is loopback, for local mode (AddressPolicy): its receivers run on the same
 * machine. Nothing else is ever let through, whatever the setting: local mode may run on a cloud VM,
 * where 169.254.169.254 hands out that machine's credentials, and its LAN is someone's network too.
 */
export interface AddressPolicy {
  /** This machine only: 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104, as the OS routes them. */
  allowLoopback: boolean;
}

/** What the AWS host allows: public addresses only. */
export const PUBLIC_ONLY: AddressPolicy = Object.freeze({ allowLoopback: false });

// Checked in this order, so an address is named by the most telling category that holds it.
const RANGES: Record<string, Array<[string, number, 'ipv4' | 'ipv6']>> = {
  // Instance metadata and credential endpoints. Most sit inside link-local or private blocks refused
  // anyway; they are listed so the refusal says what was at stake, and for the ones that do not
  // (Azure's WireServer is a public address, routed only inside Azure).
  'cloud metadata': [
    ['169.254.169.254', 32, 'ipv4'], // EC2, GCP (metadata.google.internal), Azure, OpenStack, DigitalOcean, OCI
    ['169.254.170.2', 32, 'ipv4'], // ECS task credentials
    ['169.254.170.23', 32, 'ipv4'], // EKS Pod Identity agent
    ['fd00:ec2::254', 128, 'ipv6'], // EC2 metadata over IPv6
    ['fd00:ec2::23', 128, 'ipv6'], // EKS Pod Identity agent over IPv6
    ['100.100.100.200', 32, 'ipv4'], // Alibaba Cloud
    ['192.0.0.192', 32, 'ipv4'], // Oracle Cloud (classic)
    ['168.63.129.16', 32, 'ipv4'], // Azure WireServer
  ],
  unspecified: [
    ['0.0.0.0', 8, 'ipv4'],
    ['::', 128, 'ipv6'],
  ],
  loopback: [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  private: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
  ],
  'carrier-grade NAT': [['100.64.0.0', 10, 'ipv4']],
  'link-local': [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
  ],
  'unique-local': [
    ['fc00::', 7, 'ipv6'],
    // Deprecated site-local, still routed by some stacks.
    ['fec0::', 10, 'ipv6'],
  ],
  multicast: [
    ['224.0.0.0', 4, 'ipv4'],
    ['ff00::', 8, 'ipv6'],
  ],
  // Special-purpose blocks that no public receiver lives in: protocol assignments, documentation,
  // benchmarking, reserved and broadcast, the IPv6 discard prefix and documentation prefix.
  reserved: [
    ['192.0.0.0', 24, 'ipv4'],
    ['192.0.2.0', 24, 'ipv4'],
    ['198.18.0.0', 15, 'ipv4'],
    ['198.51.100.0', 24, 'ipv4'],
    ['203.0.113.0', 24, 'ipv4'],
    ['240.0.0.0', 4, 'ipv4'],
    ['192.88.99.0', 24, 'ipv4'],
    ['100::', 64, 'ipv6'],
    ['2001:db8::', 32, 'ipv6'],
    // Transition forms whose IPv4 part is not taken apart below: Teredo (an inverted address),
    // NAT64 local use, SIIT translated addresses. No receiver needs them.
    ['2001::', 32, 'ipv6'],
    ['64:ff9b:1::', 48, 'ipv6'],
    ['::ffff:0:0:0', 96, 'ipv6'],
  ],
};

let builtLists: Array<{ category: string; list: BlockList }> | undefined;

/**
 * The ranges as BlockLists, built on the first address checked, not at load: the Lambdas bundling
 * this (webhooks, routes, alerts, previews) check addresses only when a URL is saved or fetched, so
 * their cold starts need not build them.
 */
function lists(): Array<{ category: string; list: BlockList }> {
  return (builtLists ??= Object.entries(RANGES).map(([category, ranges]) => {
    const list = new BlockList();
    for (const [network, prefix, type] of ranges) list.addSubnet(network, prefix, type);
    return { category, list };
  }));
}

/** Expands an IPv6 address to its eight 16-bit groups (an embedded dotted IPv4 tail included). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const zeros = tail === undefined ? [] : new Array(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right];
}

const ipv4FromGroups = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 address carries, for the forms that route to one. */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (g.length !== 8) return undefined;
  const zeroUpTo = (n: number) => g.slice(0, n).every((group) => group === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated but still parsed by stacks).
  if (zeroUpTo(5) && (g[5] === 0xffff || g[5] === 0) && !(g[5] === 0 && g[6] === 0)) return ipv4FromGroups(g[6]!, g[7]!);
  // 64:ff9b::/96, the NAT64 well-known prefix, reaches the IPv4 address through a translator.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((group) => group === 0)) return ipv4FromGroups(g[6]!, g[7]!);
  // 2002::/16, 6to4: the IPv4 address of the relay is the next 32 bits.
  if (g[0] === 0x2002) return ipv4FromGroups(g[1]!, g[2]!);
  return undefined;
}

/** The IPv4 address of an IPv4-mapped IPv6 address (::ffff:a.b.c.d), which the OS connects to as IPv4. */
function mappedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  return g.length === 8 && g.slice(0, 5).every((group) => group === 0) && g[5] === 0xffff ? ipv4FromGroups(g[6]!, g[7]!) : undefined;
}

/**
 * Loopback on this machine itself. The translated forms (NAT64, 6to4, compatible) of 127.0.0.1 are
 * not: they name a loopback address on some gateway, never a local receiver.
 */
function isOwnLoopback(bare: string): boolean {
  if (isIP(bare) === 4) return bare.split('.')[0] === '127';
  if (ipv6Groups(bare).join(':') === '0:0:0:0:0:0:0:1') return true;
  return mappedIpv4(bare)?.split('.')[0] === '127';
}

function categoryOf(bare: string): string | undefined {
  const version = isIP(bare);
  if (version === 0) return 'invalid';
  const type = version === 4 ? 'ipv4' : 'ipv6';
  for (const { category, list } of lists()) if (list.check(bare, type)) return category;
  if (version === 6) {
    const inner = embeddedIpv4(bare);
    if (inner) return categoryOf(inner);
  }
  return undefined;
}

/**
 * Why an address is off limits for webhooks under `policy` (`loopback`, `private`, `cloud metadata`,
 * ...), or undefined when it may be reached. Anything that is not an IP address at all is refused as
 * `invalid`. Without a policy, the strictest: public addresses only.
 */
export function forbiddenAddressCategory(address: string, policy: AddressPolicy = PUBLIC_ONLY): string | undefined {
  const bare = address.split('%')[0]!;
  const category = categoryOf(bare);
  if (category === 'loopback' && policy.allowLoopback && isOwnLoopback(bare)) return undefined;
  return category;
}
