// Which addresses a webhook may be delivered to. A customer picks the endpoint URL, so without this check
// a delivery is a request from inside our network to wherever they like — the cloud metadata service first.
// Deny-list from Svix's `is_allowed()`, Convoy and Superlog (their SSRF filters), plus
// the stricter IPv6 rule: only global unicast (2000::/3) is deliverable at all.
import { formatIPv4, formatIpAddress, type IpAddress, parseIpAddress } from './ip-address.js';

export type RefusalReason =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared-address-space'
  | 'link-local'
  | 'metadata'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'benchmarking'
  | 'documentation'
  | 'unique-local'
  | 'ipv4-compatible'
  | 'tunnel'
  | 'not-an-ip-address';

export type AddressClass =
  | { allowed: true; address: string }
  | { allowed: false; address: string; reason: RefusalReason; detail: string };

interface Range<T> {
  base: T;
  bits: number;
  reason: RefusalReason;
  detail: string;
}

const v4 = (dotted: string, bits: number, reason: RefusalReason, detail: string): Range<number> => {
  const parts = dotted.split('.').map(Number);
  return {
    base: ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!,
    bits,
    reason,
    detail,
  };
};

// First match wins, so the narrow ranges sit above the wide ones that contain them.
const IPV4_REFUSED: readonly Range<number>[] = [
  v4('169.254.169.254', 32, 'metadata', 'cloud instance metadata service'),
  v4('169.254.170.2', 32, 'metadata', 'ECS task metadata endpoint'),
  v4('255.255.255.255', 32, 'broadcast', 'limited broadcast'),
  v4('0.0.0.0', 8, 'unspecified', '"this network" (0.0.0.0/8)'),
  v4('10.0.0.0', 8, 'private', 'private network 10.0.0.0/8'),
  v4('100.64.0.0', 10, 'shared-address-space', 'carrier-grade NAT 100.64.0.0/10'),
  v4('127.0.0.0', 8, 'loopback', 'loopback 127.0.0.0/8'),
  v4('169.254.0.0', 16, 'link-local', 'link-local 169.254.0.0/16'),
  v4('172.16.0.0', 12, 'private', 'private network 172.16.0.0/12'),
  v4('192.0.0.0', 24, 'reserved', 'IETF protocol assignments 192.0.0.0/24'),
  v4('192.0.2.0', 24, 'documentation', 'documentation TEST-NET-1'),
  v4('192.88.99.0', 24, 'reserved', '6to4 relay anycast 192.88.99.0/24'),
  v4('192.168.0.0', 16, 'private', 'private network 192.168.0.0/16'),
  v4('198.18.0.0', 15, 'benchmarking', 'benchmarking 198.18.0.0/15'),
  v4('198.51.100.0', 24, 'documentation', 'documentation TEST-NET-2'),
  v4('203.0.113.0', 24, 'documentation', 'documentation TEST-NET-3'),
  v4('224.0.0.0', 4, 'multicast', 'multicast 224.0.0.0/4'),
  v4('240.0.0.0', 4, 'reserved', 'reserved 240.0.0.0/4'),
];

function inV4(value: number, range: Range<number>): boolean {
  if (range.bits === 0) return true;
  const shift = 32 - range.bits;
  return value >>> shift === range.base >>> shift;
}

function classifyIPv4(value: number): AddressClass {
  const address = formatIPv4(value);
  const hit = IPV4_REFUSED.find((range) => inV4(value, range));
  return hit
    ? { allowed: false, address, reason: hit.reason, detail: hit.detail }
    : { allowed: true, address };
}

const v6 = (
  prefix: bigint,
  bits: number,
  reason: RefusalReason,
  detail: string,
): Range<bigint> => ({
  base: prefix,
  bits,
  reason,
  detail,
});

function inV6(value: bigint, range: Range<bigint>): boolean {
  const shift = BigInt(128 - range.bits);
  return value >> shift === range.base >> shift;
}

const IPV4_MAPPED = v6(0xffffn << 32n, 96, 'reserved', 'IPv4-mapped');
const IPV4_COMPATIBLE = v6(0n, 96, 'ipv4-compatible', 'IPv4-compatible (deprecated)');
const NAT64 = v6(0x0064ff9bn << 96n, 96, 'reserved', 'NAT64 64:ff9b::/96');
const SIX_TO_FOUR = v6(0x2002n << 112n, 16, 'tunnel', '6to4 2002::/16');
const TEREDO = v6(0x20010000n << 96n, 32, 'tunnel', 'Teredo 2001::/32');
const GLOBAL_UNICAST = v6(1n << 125n, 3, 'reserved', 'outside global unicast 2000::/3');

const IPV6_REFUSED: readonly Range<bigint>[] = [
  v6(0n, 128, 'unspecified', 'unspecified ::'),
  v6(1n, 128, 'loopback', 'loopback ::1'),
  v6(
    (0xfd000ec2n << 96n) | 0x254n,
    128,
    'metadata',
    'AWS instance metadata over IPv6 (fd00:ec2::254)',
  ),
  v6(0x0064ff9b0001n << 80n, 48, 'reserved', 'local-use NAT64 64:ff9b:1::/48'),
  v6(0x0100n << 112n, 64, 'reserved', 'discard-only 100::/64'),
  TEREDO,
  v6(0x20010db8n << 96n, 32, 'documentation', 'documentation 2001:db8::/32'),
  v6(0x2001n << 112n, 23, 'reserved', 'IETF protocol assignments 2001::/23'),
  v6(0x3fffn << 112n, 20, 'documentation', 'documentation 3fff::/20'),
  v6(0x5f00n << 112n, 16, 'reserved', 'SRv6 SIDs 5f00::/16'),
  v6(0xfc00n << 112n, 7, 'unique-local', 'unique local fc00::/7'),
  v6(0xfe80n << 112n, 10, 'link-local', 'link-local fe80::/10'),
  v6(0xfec0n << 112n, 10, 'private', 'site-local fec0::/10 (deprecated)'),
  v6(0xff00n << 112n, 8, 'multicast', 'multicast ff00::/8'),
];

function embedded(
  address: string,
  ipv4: number,
  via: Range<bigint>,
  refuseEvenIfPublic: boolean,
): AddressClass {
  const inner = classifyIPv4(ipv4);
  if (!inner.allowed) {
    return {
      allowed: false,
      address,
      reason: inner.reason,
      detail: `${via.detail} of ${inner.address}: ${inner.detail}`,
    };
  }
  if (refuseEvenIfPublic)
    return {
      allowed: false,
      address,
      reason: via.reason,
      detail: `${via.detail} of ${inner.address}`,
    };
  return { allowed: true, address };
}

function classifyIPv6(value: bigint, address: string): AddressClass {
  const hit = IPV6_REFUSED.slice(0, 2).find((range) => inV6(value, range));
  if (hit) return { allowed: false, address, reason: hit.reason, detail: hit.detail };

  const low32 = Number(value & 0xffffffffn);
  // The socket dials the IPv4 inside these, so they are judged as that IPv4. A mapped or NAT64 form of a
  // public IPv4 is legitimate; the deprecated compatible form and the 6to4 / Teredo tunnels hand the packet to
  // a relay we do not control, so they are refused outright — but the embedded reason wins when it applies.
  if (inV6(value, IPV4_MAPPED)) return embedded(address, low32, IPV4_MAPPED, false);
  if (inV6(value, NAT64)) return embedded(address, low32, NAT64, false);
  if (inV6(value, IPV4_COMPATIBLE)) return embedded(address, low32, IPV4_COMPATIBLE, true);
  if (inV6(value, SIX_TO_FOUR))
    return embedded(address, Number((value >> 80n) & 0xffffffffn), SIX_TO_FOUR, true);
  // Teredo stores the client IPv4 inverted in the low 32 bits.
  if (inV6(value, TEREDO)) return embedded(address, ~low32 >>> 0, TEREDO, true);

  const refused = IPV6_REFUSED.find((range) => inV6(value, range));
  if (refused) return { allowed: false, address, reason: refused.reason, detail: refused.detail };
  if (!inV6(value, GLOBAL_UNICAST)) {
    return {
      allowed: false,
      address,
      reason: GLOBAL_UNICAST.reason,
      detail: GLOBAL_UNICAST.detail,
    };
  }
  return { allowed: true, address };
}

export function classifyParsed(ip: IpAddress): AddressClass {
  return ip.version === 4 ? classifyIPv4(ip.value) : classifyIPv6(ip.value, formatIpAddress(ip));
}

/**
 * Classify an IP address in any spelling (dotted quad, legacy IPv4 forms, IPv6 with or without brackets).
 * Text that is not an IP address is refused too: callers must resolve names first and classify the result.
 */
export function classifyAddress(text: string): AddressClass {
  const ip = parseIpAddress(text);
  if (!ip)
    return {
      allowed: false,
      address: text,
      reason: 'not-an-ip-address',
      detail: 'not an IP address',
    };
  return classifyParsed(ip);
}

/** One line naming the address and why it is refused, for errors and attempt records. */
export function describeRefusal(refusal: Extract<AddressClass, { allowed: false }>): string {
  return `${refusal.address} is refused: ${refusal.reason} (${refusal.detail})`;
}
