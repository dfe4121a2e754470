import { InsufficientFundError } from '../../errors/index.js';
import { contractFor, evaluate } from './contract-eval.js';
import { availableOf, type HeldVolume, NO_HOLD } from './held-volume.js';
import type { Mapping } from './mapping.js';
import { WORLD } from './names.js';
import type { Posting, Volume } from './postings.js';

/**
 * The available balance (pending transfers, domain/pending.ts): posted, less what unresolved holds will take out.
 * Apart from the holds' decisions because every write checks it: a cold start loads this, not them.
 */

export { availableOf, type HeldVolume, NO_HOLD } from './held-volume.js';

/** What the available check reads besides the volumes: held money, the contracts, accounts' metadata. */
export interface HeldState {
  held(account: string, asset: string): HeldVolume | undefined;
  mapping?: Mapping;
  metadataOf?: (account: string) => Readonly<Record<string, string>> | undefined;
}

/**
 * The rule every other write of a ledger with holds obeys: after its postings, each source it debited (not
 * `world`, not forced) still has its held money — available ≥ its contract's floor. `after` is the posted volume
 * the write leaves.
 */
export function checkAvailableAfter(
  state: HeldState,
  postings: readonly Posting[],
  after: (account: string, asset: string) => Volume,
  force: boolean,
): void {
  if (force) return;
  const debited = new Map<string, Posting & { index: number }>();
  postings.forEach((p, index) => {
    if (p.amount > 0n && p.source !== WORLD)
      debited.set(`${p.source}\u0000${p.asset}`, { ...p, index });
  });
  for (const p of debited.values()) {
    const held = state.held(p.source, p.asset) ?? NO_HOLD;
    if (held.pendingOutput === 0n) continue;
    const available = availableOf(after(p.source, p.asset), held);
    const { contract } = contractFor(state.mapping, p.source);
    if (evaluate(contract.expr, available, state.metadataOf?.(p.source) ?? {})) continue;
    throw new InsufficientFundError(
      `account "${p.source}" has insufficient available funds for posting ${p.index} (${p.amount} ${p.asset}): available would be ${available}, ${held.pendingOutput} being held`,
    );
  }
}
