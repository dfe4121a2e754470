import type { HeadState, LedgerChange } from './change.js';
import type { Volume } from './postings.js';

/**
 * Assertions on the money path, checked before anything is written (TigerBeetle's style: a broken invariant
 * stops the commit rather than being found later). They pair with the property tests, which check the same from
 * outside. A failure is a bug, never bad input: it throws a plain Error (500, nothing written).
 */
export class InvariantViolation extends Error {
  constructor(message: string) {
    super(`ledger invariant violated: ${message}`);
    this.name = 'InvariantViolation';
  }
}

/** Every asset's volume deltas of one change sum to zero: what leaves one account enters another. */
export function assertBalanced(
  change: LedgerChange,
  before: (account: string, asset: string) => Volume | undefined,
): void {
  const net = new Map<string, bigint>();
  for (const { account, asset, volume } of change.volumes) {
    const was = before(account, asset) ?? { input: 0n, output: 0n };
    const delta = volume.input - was.input - (volume.output - was.output);
    net.set(asset, (net.get(asset) ?? 0n) + delta);
  }
  for (const [asset, sum] of net) {
    if (sum !== 0n)
      throw new InvariantViolation(`the volume deltas of ${asset} sum to ${sum}, not 0`);
  }
}

/**
 * A batch's log entries take the ids after HEAD's, without a gap, and HEAD ends at the last of them; new
 * transaction ids likewise.
 */
export function assertFollows(
  initial: HeadState,
  logIds: readonly number[],
  head: HeadState,
  txIds: readonly number[],
): void {
  logIds.forEach((id, i) => {
    if (id !== initial.lastLogId + 1 + i)
      throw new InvariantViolation(`log id ${id} does not follow ${initial.lastLogId + i}`);
  });
  if (head.lastLogId !== initial.lastLogId + logIds.length)
    throw new InvariantViolation(
      `HEAD ends at log ${head.lastLogId}, not ${initial.lastLogId + logIds.length}`,
    );
  txIds.forEach((id, i) => {
    if (id !== initial.lastTxId + 1 + i)
      throw new InvariantViolation(`transaction id ${id} does not follow ${initial.lastTxId + i}`);
  });
  if (head.lastTxId !== initial.lastTxId + txIds.length)
    throw new InvariantViolation(
      `HEAD ends at transaction ${head.lastTxId}, not ${initial.lastTxId + txIds.length}`,
    );
}
