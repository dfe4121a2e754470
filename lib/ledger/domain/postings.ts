import { InsufficientFundError, ValidationError } from '../../errors/index.js';
import { LEDGER_MAX_AMOUNT, LEDGER_MAX_DIGITS } from '../../money/amounts.js';
import { contractFor, describeContract, evaluate } from './contract-eval.js';
import type { Mapping } from './mapping.js';
import { WORLD } from './names.js';

/** Postings of one transaction, at most. */
export const MAX_POSTINGS = 100;

export interface Posting {
  source: string;
  destination: string;
  amount: bigint;
  asset: string;
}

export interface Volume {
  input: bigint;
  output: bigint;
}

/** Volumes by account, then asset. */
export type VolumeMap = Map<string, Map<string, Volume>>;

export const balanceOf = (v: Volume): bigint => v.input - v.output;

export function volumeOf(map: VolumeMap, account: string, asset: string): Volume {
  return map.get(account)?.get(asset) ?? { input: 0n, output: 0n };
}

function setVolume(map: VolumeMap, account: string, asset: string, volume: Volume): void {
  let assets = map.get(account);
  if (!assets) {
    assets = new Map();
    map.set(account, assets);
  }
  assets.set(asset, volume);
}

/** Every (account, asset) pair a list of postings touches, in first-touch order. */
export function touchedPairs(postings: readonly Posting[]): Array<[string, string]> {
  const seen = new Map<string, [string, string]>();
  for (const p of postings) {
    for (const account of [p.source, p.destination])
      seen.set(`${account}\u0000${p.asset}`, [account, p.asset]);
  }
  return [...seen.values()];
}

export interface BalanceRules {
  force: boolean;
  /** The ledger's mapping (v1 contracts); without one every account but `world` has the floor zero. */
  mapping?: Mapping;
  /** An account's metadata as stored before the transaction, for `{"$meta": key}` operands. */
  metadataOf?: (account: string) => Readonly<Record<string, string>> | undefined;
}

/**
 * Applies postings in order to the volumes before the transaction, so no account is below its floor even between two
 * postings of one transaction: after each posting that debits an account (amount > 0), the account's contract must
 * hold for that asset — the mapping's first matching contract, else "balance >= 0" — unless the account is `world` or
 * `force` is set. So an earlier posting may fund a later one. Returns the volumes after the transaction for every
 * touched pair; throws INSUFFICIENT_FUND naming the account, asset, balance and contract otherwise.
 */
export function applyPostings(
  postings: readonly Posting[],
  before: VolumeMap,
  options: BalanceRules,
): VolumeMap {
  const after: VolumeMap = new Map();
  for (const [account, asset] of touchedPairs(postings))
    setVolume(after, account, asset, { ...volumeOf(before, account, asset) });
  postings.forEach((posting, index) => {
    const source = volumeOf(after, posting.source, posting.asset);
    source.output += posting.amount;
    const destination = volumeOf(after, posting.destination, posting.asset);
    destination.input += posting.amount;
    if (posting.amount === 0n || posting.source === WORLD || options.force) return;
    const balance = balanceOf(source);
    const { contract, index: contractIndex } = contractFor(options.mapping, posting.source);
    if (evaluate(contract.expr, balance, options.metadataOf?.(posting.source) ?? {})) return;
    const shortfall = `account "${posting.source}" has insufficient funds for posting ${index} (${posting.amount} ${posting.asset}): balance would be ${balance}`;
    // Without a mapping the message stays exactly what it always was.
    throw new InsufficientFundError(
      contractIndex === undefined
        ? shortfall
        : `${shortfall}, which breaks ${describeContract(contract, contractIndex)}`,
    );
  });
  for (const assets of after.values()) {
    for (const [asset, v] of assets) {
      if (v.input > LEDGER_MAX_AMOUNT || v.output > LEDGER_MAX_AMOUNT) {
        throw new ValidationError(
          `volumes of ${asset} would exceed the ${LEDGER_MAX_DIGITS}-digit limit`,
        );
      }
    }
  }
  return after;
}

/** Reverses postings for a revert: each source and destination swapped, in reverse order. */
export function reversePostings(postings: readonly Posting[]): Posting[] {
  return [...postings].reverse().map((p) => ({
    source: p.destination,
    destination: p.source,
    amount: p.amount,
    asset: p.asset,
  }));
}
