import type { Move } from '../domain/change.js';

/**
 * Moves are kept compactly (docs/data-model.md, "Moves"): DynamoDB bills an item by its bytes, attribute names
 * included, so a move is one short string `<txId>|<effective µs>|<input>|<output>|<flags>` in a list — in the
 * buffer on its volume item, then in a page item. Flags: `s` source, `d` destination, `l` late (its effective
 * time was below the pair's greatest when it was written).
 */
/** A move as its pair keeps it (the pair is the item's): and whether it arrived late. */
export interface StoredMove extends Omit<Move, 'account' | 'asset'> {
  late: boolean;
}

/** A move's key in its pair's effective-time order: effective time, then id. */
export const moveKey = (at: string, txId: number) => `${at}#${String(txId).padStart(15, '0')}`;

export function encodeMove(move: Move, late: boolean): string {
  const flags = `${move.source ? 's' : ''}${move.destination ? 'd' : ''}${late ? 'l' : ''}`;
  return `${move.txId}|${sortableToMicros(move.at)}|${move.input}|${move.output}|${flags}`;
}

export function decodeMove(text: string): StoredMove {
  const [txId, micros, input, output, flags = ''] = text.split('|');
  return {
    txId: Number(txId),
    at: microsToSortable(micros!),
    input: BigInt(input!),
    output: BigInt(output!),
    source: flags.includes('s'),
    destination: flags.includes('d'),
    late: flags.includes('l'),
  };
}

/**
 * `2026-11-23T02:15:21.222123Z` ↔ the digits of microseconds since the epoch (16 characters instead of 27).
 * Kept as text: years up to 9999 exceed 2^53 microseconds.
 */
function sortableToMicros(at: string): string {
  return `${Date.parse(`${at.slice(0, 23)}Z`)}${at.slice(23, 26)}`;
}

function microsToSortable(micros: string): string {
  return `${new Date(Number(micros.slice(0, -3))).toISOString().slice(0, 23)}${micros.slice(-3)}Z`;
}
