import type { Volume } from './postings.js';

/**
 * Held money and the available balance it leaves, alone in a file: the available check (available.ts) and the
 * monitors (monitors.ts) both read it, and the check's contract evaluation leads back to the monitors.
 */

/** Money held on a pair by unresolved holds: what will come in, what will go out. */
export interface HeldVolume {
  pendingInput: bigint;
  pendingOutput: bigint;
}

export const NO_HOLD: HeldVolume = { pendingInput: 0n, pendingOutput: 0n };

/** The balance a payment may spend: posted, less what unresolved holds will take out. */
export function availableOf(volume: Volume | undefined, held: HeldVolume | undefined): bigint {
  const v = volume ?? { input: 0n, output: 0n };
  return v.input - v.output - (held ?? NO_HOLD).pendingOutput;
}
