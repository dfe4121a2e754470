import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountExpand, AccountRecord, AccountVolumes } from '../domain/account.js';
import type { LedgerRecord } from '../domain/change.js';
import { isEnabled } from '../domain/features.js';
import { accountMetadataAt, changedAfter } from '../domain/point-in-time.js';
import { insertionCut } from './insertion-cut.js';
import { metadataHistoryAt } from './metadata-history.js';
import type { PointInTimeVolumes, VolumeCut } from './point-in-time-volumes.js';

export interface AccountAt {
  account: AccountRecord;
  volumes?: AccountVolumes;
  effectiveVolumes?: AccountVolumes;
}

/**
 * Accounts as they stood at a point in time, as the reference shows them: metadata from its revisions
 * (ACCOUNT_METADATA_HISTORY; without it the current metadata), `volumes` by insertion time (the moves of the
 * transactions inserted by then), `effectiveVolumes` by effective time (the moves dated by then). An asset with
 * no move by then is left out. The other fields are the account's current ones.
 */
export async function accountsAtPointInTime(
  doc: DynamoDBDocumentClient,
  tableFor: (bucket: string) => string,
  volumes: PointInTimeVolumes,
  ledger: LedgerRecord,
  accounts: readonly AccountRecord[],
  pit: string,
  expand: AccountExpand,
): Promise<AccountAt[]> {
  const table = tableFor(ledger.bucket);
  const history = isEnabled(ledger.features, 'ACCOUNT_METADATA_HISTORY');
  const [metadata, inserted, effective] = await Promise.all([
    Promise.all(
      accounts.map(async (account) =>
        history
          ? accountMetadataAt(
              account,
              pit,
              changedAfter(account.updatedAt, pit)
                ? await metadataHistoryAt(
                    doc,
                    table,
                    ledger,
                    { type: 'ACCOUNT', address: account.address },
                    pit,
                  )
                : {},
            )
          : account.metadata,
      ),
    ),
    expand.volumes
      ? insertionCut(doc, tableFor, ledger, pit).then((lastTxId) =>
          volumesAt(volumes, ledger, accounts, { clock: 'insertion', lastTxId, near: pit }),
        )
      : undefined,
    expand.effectiveVolumes
      ? volumesAt(volumes, ledger, accounts, { clock: 'effective', at: pit })
      : undefined,
  ]);
  return accounts.map((account, i) => ({
    account: { ...account, metadata: metadata[i]! },
    ...(inserted ? { volumes: inserted.get(account.address)! } : {}),
    ...(effective ? { effectiveVolumes: effective.get(account.address)! } : {}),
  }));
}

/** Volumes of accounts (every asset they hold) at a cut, by address; assets without a move by then left out. */
export async function volumesAt(
  volumes: PointInTimeVolumes,
  ledger: LedgerRecord,
  accounts: readonly AccountRecord[],
  cut: VolumeCut,
): Promise<Map<string, AccountVolumes>> {
  const pairs = accounts.flatMap((a) => a.assets.map((asset) => [a.address, asset] as const));
  const found = await volumes.of(ledger, pairs, cut);
  const result = new Map<string, AccountVolumes>(accounts.map((a) => [a.address, {}]));
  pairs.forEach(([address, asset], i) => {
    const volume = found[i];
    if (volume)
      result.get(address)![asset] = {
        input: volume.input,
        output: volume.output,
        balance: volume.input - volume.output,
      };
  });
  return result;
}
