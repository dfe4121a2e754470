/**
 * Volumes by effective time (MOVES_HISTORY_POST_COMMIT_EFFECTIVE_VOLUMES).
 *
 * The effective volumes of a pair (account, asset) at a move M are the sums over every move whose key
 * (`<effective time>#<id>`) is at most M's — including transactions committed later with an earlier timestamp.
 * Each move stores the pair's volumes right after it in COMMIT order (`postInput/postOutput`), which differ from
 * the effective ones only through moves that arrived out of order:
 *
 *   effective(M) = post(M) − Σ{ X : X committed before M, key(X) > key(M) }
 *                          + Σ{ X : X committed after M,  key(X) < key(M) }
 *
 * - The second set are all "late" moves (when X was written, M's key was already above it), kept in the pair's
 *   late-move partition — usually empty, so the correction costs one small Query.
 * - The first set is empty unless M itself was late; then every such X has a key in (key(M), lateOf(M)], where
 *   `lateOf` is the pair's greatest key when M was written — a range bounded by how far M was back-dated.
 *
 * So nothing already written is ever rewritten (a back-dated insert costs one extra item per pair), and a read
 * costs O(late moves + back-dating span) instead of O(history).
 */

export interface MoveRecord {
  key: string;
  txId: number;
  input: bigint;
  output: bigint;
}

export interface RecordedMove extends MoveRecord {
  postInput: bigint;
  postOutput: bigint;
  /** Set when the move was late: the pair's greatest move key when it was written. */
  lateOf?: string;
}

export interface EffectiveVolume {
  input: bigint;
  output: bigint;
}

/**
 * Effective volumes right after `move`, given the pair's late moves (any superset of those with a key below
 * `move.key`) and, when `move` was late, the moves with keys in (move.key, move.lateOf].
 */
export function effectiveAfter(
  move: RecordedMove,
  lateMoves: readonly MoveRecord[],
  overtaken: readonly MoveRecord[] = [],
): EffectiveVolume {
  let input = move.postInput;
  let output = move.postOutput;
  for (const x of lateMoves) {
    if (x.key < move.key && x.txId > move.txId) {
      input += x.input;
      output += x.output;
    }
  }
  if (move.lateOf !== undefined) {
    for (const x of overtaken) {
      if (x.key > move.key && x.key <= move.lateOf && x.txId < move.txId) {
        input -= x.input;
        output -= x.output;
      }
    }
  }
  return { input, output };
}
