/** Small renderings shared by the human tables. */

/** `k=v, k2=v2`, keys sorted; empty for no metadata. */
export function formatMetadata(metadata: Record<string, unknown> | undefined): string {
  return Object.keys(metadata ?? {})
    .sort()
    .map((k) => `${k}=${String(metadata![k])}`)
    .join(', ');
}

export interface PostingView {
  source: string;
  destination: string;
  amount: bigint | number;
  asset: string;
}

/** `world -> users:alice  2500 USD/2`: the amount as the exact integer the ledger keeps. */
export function formatPosting(p: PostingView): string {
  return `${p.source} -> ${p.destination}  ${String(p.amount)} ${p.asset}`;
}
