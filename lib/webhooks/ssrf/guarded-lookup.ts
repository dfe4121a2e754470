// The connect-time SSRF guard. Checking the endpoint when a config is saved is not enough: DNS can answer
// differently by the time we deliver (rebinding). Node's http/https (and undici's `connect.lookup`) dial
// exactly what the `lookup` option returns, so checking inside it checks the address actually connected to.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { type AddressClass, classifyAddress, describeRefusal } from './classify.js';
import { formatIpAddress, parseIpAddress } from './ip-address.js';

/** Resolves a host name to every address it has (A and AAAA). Injectable so tests never touch real DNS. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses),
    );
  });

export interface GuardOptions {
  /**
   * Local mode delivers to receivers on 127.0.0.1, so it may allow loopback — and only loopback: private,
   * link-local and metadata addresses stay refused even then.
   */
  allowLoopback?: boolean;
  resolve?: Resolver;
}

export class RefusedAddressError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
  constructor(
    readonly hostname: string,
    readonly refusal: Extract<AddressClass, { allowed: false }>,
  ) {
    const via = refusal.address === hostname ? '' : `${hostname} resolves to `;
    super(`webhook target refused: ${via}${describeRefusal(refusal)}`);
    this.name = 'RefusedAddressError';
  }
}

export function checkAddress(
  hostname: string,
  address: string,
  { allowLoopback = false }: GuardOptions,
): void {
  const verdict = classifyAddress(address);
  if (verdict.allowed || (allowLoopback && verdict.reason === 'loopback')) return;
  throw new RefusedAddressError(hostname, verdict);
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Every address `hostname` would be dialled at, each checked; throws RefusedAddressError if ANY is refused
 * (a name with one public and one internal record is an attack, not a fallback). IP literals — in any
 * spelling getaddrinfo accepts, e.g. `2130706433` — are checked without DNS.
 */
export async function resolveDeliverable(
  hostname: string,
  options: GuardOptions = {},
): Promise<LookupAddress[]> {
  const host = unbracket(hostname);
  const literal = parseIpAddress(host);
  if (literal) {
    const address = formatIpAddress(literal);
    checkAddress(hostname, address, options);
    return [{ address, family: literal.version }];
  }
  const addresses = await (options.resolve ?? systemResolver)(host);
  if (addresses.length === 0) {
    throw Object.assign(new Error(`webhook target ${host} has no addresses`), {
      code: 'ENOTFOUND',
    });
  }
  for (const { address } of addresses) checkAddress(hostname, address, options);
  return addresses;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for `http.request` / `https.request` / `net.connect` / undici `connect` that refuses bad targets. */
export function guardedLookup(options: GuardOptions = {}) {
  return (
    hostname: string,
    lookupOptions: LookupOptions | number | undefined,
    callback: LookupCallback,
  ): void => {
    const opts: LookupOptions =
      typeof lookupOptions === 'number' ? { family: lookupOptions } : (lookupOptions ?? {});
    resolveDeliverable(hostname, options).then(
      (all) => {
        const family = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : opts.family;
        const wanted = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
        if (wanted.length === 0) {
          callback(
            Object.assign(new Error(`${hostname} has no IPv${family} address`), {
              code: 'ENOTFOUND',
            }),
            '',
          );
        } else if (opts.all) {
          callback(null, wanted);
        } else {
          callback(null, wanted[0]!.address, wanted[0]!.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
