// Parsing of IP address text into numbers the range checks can compare: IPv4 as a 32-bit unsigned number,
// IPv6 as a 128-bit bigint. Hand-written rather than leaning on `net.isIP` because the guard has to see the
// same address the socket will dial, including the legacy IPv4 spellings that getaddrinfo still accepts.

export type IpAddress = { version: 4; value: number } | { version: 6; value: bigint };

const DECIMAL = /^(?:0|[1-9]\d*)$/;
const OCTAL = /^0[0-7]+$/;
const HEX = /^0[xX][0-9a-fA-F]*$/;

function legacyPart(part: string): number | undefined {
  if (DECIMAL.test(part)) return Number(part);
  if (OCTAL.test(part)) return parseInt(part.slice(1), 8);
  if (HEX.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16); // inet_aton takes a bare "0x"
  return undefined;
}

/**
 * IPv4 the way inet_aton / getaddrinfo / WHATWG URL read it: one to four parts, each decimal, octal (leading 0)
 * or hex (0x); the last part fills the remaining bytes. So `2130706433`, `0x7f000001`, `0177.0.0.1` and `127.1`
 * are all 127.0.0.1 — a host that passes a naive dotted-quad check would still reach loopback.
 */
export function parseIPv4(text: string): number | undefined {
  const host = text.endsWith('.') ? text.slice(0, -1) : text; // resolvers ignore one trailing dot
  const parts = host.split('.');
  if (parts.length > 4 || parts.some((p) => p === '')) return undefined;
  const numbers = parts.map(legacyPart);
  if (numbers.some((n) => n === undefined || !Number.isFinite(n))) return undefined;
  const values = numbers as number[];
  const last = values.pop()!;
  if (values.some((n) => n > 255)) return undefined;
  const lastBytes = 4 - values.length;
  if (last >= 2 ** (8 * lastBytes)) return undefined;
  const head = values.reduce((acc, n) => acc * 256 + n, 0);
  return head * 2 ** (8 * lastBytes) + last;
}

/** IPv6 text (RFC 4291 forms, including `::` and a trailing dotted quad), with or without brackets and zone. */
export function parseIPv6(text: string): bigint | undefined {
  let host = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = host.indexOf('%'); // fe80::1%eth0 — the zone picks an interface, not a different address
  if (zone >= 0) host = host.slice(0, zone);
  if (!host.includes(':')) return undefined;

  let groups: string[] = [];
  const halves = host.split('::');
  if (halves.length > 2) return undefined;
  const expand = (half: string): string[] | undefined => {
    if (half === '') return [];
    const out: string[] = [];
    const pieces = half.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (i === pieces.length - 1 && piece.includes('.')) {
        // An embedded dotted quad must be strict decimal: the legacy forms are not valid inside IPv6.
        if (!/^\d{1,3}(?:\.\d{1,3}){3}$/.test(piece)) return undefined;
        const v4 = parseIPv4(piece);
        if (v4 === undefined || piece.split('.').some((b) => b.length > 1 && b.startsWith('0')))
          return undefined;
        out.push((v4 >>> 16).toString(16), (v4 & 0xffff).toString(16));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) {
        out.push(piece);
      } else {
        return undefined;
      }
    }
    return out;
  };
  const head = expand(halves[0]!);
  const tail = halves.length === 2 ? expand(halves[1]!) : [];
  if (!head || !tail) return undefined;
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return undefined;
    groups = [...head, ...Array<string>(missing).fill('0'), ...tail];
  } else {
    groups = head;
  }
  if (groups.length !== 8) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** An IP literal in any spelling a resolver or URL parser would accept, or undefined for a host name. */
export function parseIpAddress(text: string): IpAddress | undefined {
  const v6 = parseIPv6(text);
  if (v6 !== undefined) return { version: 6, value: v6 };
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return { version: 4, value: v4 };
  return undefined;
}

export function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/** Canonical text (dotted quad; RFC 5952-ish compressed IPv6), used for dialing and in error messages. */
export function formatIpAddress(address: IpAddress): string {
  if (address.version === 4) return formatIPv4(address.value);
  const groups = Array.from({ length: 8 }, (_, i) =>
    Number((address.value >> BigInt(112 - 16 * i)) & 0xffffn),
  );
  // Compress the longest run (of at least two) of zero groups.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
