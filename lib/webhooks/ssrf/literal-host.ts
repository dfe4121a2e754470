// The registration-time half of the SSRF guard: an endpoint whose host is an IP literal the connect-time guard
// would refuse can never be delivered to, so it is refused when the config is saved, with the reason. Names are
// not resolved here (DNS can change before a delivery): the connect-time guard stays the one that decides.
import { classifyAddress, describeRefusal } from './classify.js';
import { parseIpAddress } from './ip-address.js';

/**
 * Why `hostname` (a WHATWG URL's `hostname`: IPv6 in brackets, legacy IPv4 spellings such as `2130706433` or
 * `0x7f.1` already normalised to a dotted quad) is not deliverable, or undefined when it is a name or an allowed
 * address. `allowLoopback` admits loopback only, exactly as the deliverer's option does.
 */
export function literalHostProblem(
  hostname: string,
  { allowLoopback }: { allowLoopback: boolean },
): string | undefined {
  const host =
    hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (!parseIpAddress(host)) return undefined;
  const verdict = classifyAddress(host);
  if (verdict.allowed || (allowLoopback && verdict.reason === 'loopback')) return undefined;
  return `must not target a non-public address: ${describeRefusal(verdict)}`;
}
