import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { environmentOfKey } from '../../environments/key-scope.js';
import type { RecordStoreOptions } from './record-store.js';

/**
 * Every initiation the timer may have to send, with its environment and the time it is due: scheduled for later
 * (SCHEDULED_FOR_PROCESSING), or sending (its sender's lease ends then). The local timer's walk (a Scan), for one
 * machine's data only.
 */
export async function scanScheduledInitiations(
  options: Pick<RecordStoreOptions, 'doc' | 'table'>,
): Promise<Array<{ environment: string; id: string; dueAt: string }>> {
  const found: Array<{ environment: string; id: string; dueAt: string }> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await options.doc.send(
      new ScanCommand({
        TableName: options.table,
        FilterExpression: 'sk = :kind AND attribute_exists(dueAt)',
        ExpressionAttributeValues: { ':kind': 'INITIATION' },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      const environment = environmentOfKey(String(item.pk));
      if (environment !== undefined)
        found.push({ environment, id: String(item.id), dueAt: String(item.dueAt) });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}
