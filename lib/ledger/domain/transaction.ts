import { balanceOf, type Posting, type VolumeMap } from './postings.js';

/** Metadata key marking a reverting transaction (the reference platform's spec key). */
export const REVERTS_KEY = 'com.formance.spec/state/reverts';

/** A transaction's reference, at most this many characters. */
export const MAX_REFERENCE_LENGTH = 256;

export interface Transaction {
  id: number;
  postings: Posting[];
  metadata: Record<string, string>;
  timestamp: string;
  insertedAt: string;
  updatedAt: string;
  reference?: string;
  /** The schema's transaction template the transaction was created from (v2.4). */
  template?: string;
  reverted: boolean;
  revertedAt?: string;
}

export type VolumesView = Record<
  string,
  Record<string, { input: bigint; output: bigint; balance: bigint }>
>;

export function volumesView(map: VolumeMap): VolumesView {
  const view: VolumesView = {};
  for (const [account, assets] of map) {
    view[account] = {};
    for (const [asset, v] of assets)
      view[account][asset] = { input: v.input, output: v.output, balance: balanceOf(v) };
  }
  return view;
}

/** Pre-commit volumes follow from post-commit ones minus the transaction's own postings. */
export function preCommitVolumes(post: VolumesView, postings: readonly Posting[]): VolumesView {
  const pre: VolumesView = structuredClone(post);
  for (const p of postings) {
    const source = pre[p.source]![p.asset]!;
    source.output -= p.amount;
    source.balance += p.amount;
    const destination = pre[p.destination]![p.asset]!;
    destination.input -= p.amount;
    destination.balance -= p.amount;
  }
  return pre;
}

/**
 * The Transaction of docs/api.md §3.2, fields in the reference platform's order; volumes only when given, effective
 * ones (by effective time, see effective-volumes.ts) likewise.
 */
export function transactionView(
  tx: Transaction,
  volumes?: { post: VolumesView },
  effective?: { post: VolumesView },
) {
  return {
    id: tx.id,
    postings: tx.postings.map((p) => ({
      source: p.source,
      destination: p.destination,
      amount: p.amount,
      asset: p.asset,
    })),
    metadata: tx.metadata,
    timestamp: tx.timestamp,
    insertedAt: tx.insertedAt,
    updatedAt: tx.updatedAt,
    ...(tx.reference !== undefined ? { reference: tx.reference } : {}),
    ...(tx.template !== undefined ? { template: tx.template } : {}),
    reverted: tx.reverted,
    ...(tx.revertedAt !== undefined ? { revertedAt: tx.revertedAt } : {}),
    ...(volumes
      ? {
          postCommitVolumes: volumes.post,
          preCommitVolumes: preCommitVolumes(volumes.post, tx.postings),
        }
      : {}),
    ...(effective
      ? {
          postCommitEffectiveVolumes: effective.post,
          preCommitEffectiveVolumes: preCommitVolumes(effective.post, tx.postings),
        }
      : {}),
  };
}
