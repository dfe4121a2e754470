import { ACCOUNT_ADDRESS, LEDGER_NAME } from '../lib/ledger/domain/names.js';
import { ASSET } from '../lib/money/asset.js';
import { UsageError } from './errors.js';

/** Argument checks shared by the commands: a bad argument is a usage error before any request is made. */

export function ledgerName(raw: string): string {
  if (!LEDGER_NAME.test(raw))
    throw new UsageError(`"${raw}" is not a ledger name (1-63 of a-z A-Z 0-9 _ -)`);
  return raw;
}

export interface PostingArg {
  source: string;
  destination: string;
  amount: bigint;
  asset: string;
}

/**
 * `--posting src:dst:amount:ASSET` (`world:bank:100:USD/2`). Addresses hold colons themselves (`users:alice`), so
 * the colon form takes single-segment addresses only; any posting may be written with spaces instead, which no
 * address contains: `--posting "users:alice merchants:acme 2500 USD/2"`.
 */
export function parsePosting(raw: string): PostingArg {
  const spaced = raw.trim().split(/\s+/);
  const parts = spaced.length > 1 ? spaced : raw.split(':');
  if (parts.length !== 4)
    throw new UsageError(
      `--posting "${raw}": expected src:dst:amount:ASSET, or "src dst amount ASSET" when an address has ":" in it`,
    );
  const [source, destination, amount, asset] = parts as [string, string, string, string];
  for (const [what, address] of [
    ['source', source],
    ['destination', destination],
  ] as const)
    if (!ACCOUNT_ADDRESS.test(address))
      throw new UsageError(`--posting "${raw}": ${what} "${address}" is not an account address`);
  if (!/^\d+$/.test(amount))
    throw new UsageError(
      `--posting "${raw}": amount "${amount}" is not a non-negative integer (in the asset's smallest unit)`,
    );
  if (!ASSET.test(asset))
    throw new UsageError(`--posting "${raw}": "${asset}" is not an asset such as USD or USD/2`);
  return { source, destination, amount: BigInt(amount), asset };
}

/** Repeated `--flag k=v` values as a map; the value is everything after the first `=`. */
export function keyValues(flag: string, pairs: readonly string[] = []): Record<string, string> {
  const map: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`${flag} "${pair}": expected key=value`);
    map[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return map;
}

/** Commander's collector for repeatable options. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `--limit N`: how many items a list prints at most. */
export function limitArg(raw: string | undefined, fallback = 100): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1)
    throw new UsageError(`--limit: "${raw}" is not a positive integer`);
  return Number(raw);
}
