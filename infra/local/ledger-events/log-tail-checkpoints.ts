import { type DynamoDBDocumentClient, PutCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { LedgerRef } from '../../../lib/ledger/store/keys.js';

/** How far one consumer has handed over one ledger's events: its last log page, its mapping's version. */
export interface LogTailPosition {
  /** Sort key of the last log page handed over ('' before the first). */
  logSk: string;
  mappingVersion: number;
}

export interface LogTailCheckpoints {
  load(): Promise<Map<string, { ledger: LedgerRef; position: LogTailPosition }>>;
  save(ledger: LedgerRef, position: LogTailPosition): Promise<void>;
}

/** The key of a ledger in a tail's maps: its environment and name. */
export const tailKey = (ledger: LedgerRef) => `${ledger.environment}\u0000${ledger.name}`;

/**
 * The log tail's checkpoints, as small items in a table of the same DynamoDB Local (the webhooks table):
 * `LOCAL#log-tail=<ledger table>#<consumer>` / `<environment>/<ledger>`. They live and die with the log they
 * point into, as the stream pollers' checkpoints do (stream-checkpoints.ts). Never written in the cloud.
 */
export function dynamoLogTailCheckpoints(
  doc: DynamoDBDocumentClient,
  table: string,
  ledgerTable: string,
  consumer: string,
): LogTailCheckpoints {
  const pk = `LOCAL#log-tail=${ledgerTable}#${consumer}`;
  return {
    async load() {
      const saved = new Map<string, { ledger: LedgerRef; position: LogTailPosition }>();
      const pages = paginateQuery(
        { client: doc },
        {
          TableName: table,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': pk },
          ConsistentRead: true,
        },
      );
      for await (const page of pages)
        for (const item of page.Items ?? []) {
          const ledger = { environment: String(item.environment), name: String(item.ledger) };
          saved.set(tailKey(ledger), {
            ledger,
            position: {
              logSk: String(item.logSk ?? ''),
              mappingVersion: Number(item.mappingVersion ?? 0),
            },
          });
        }
      return saved;
    },
    async save(ledger, position) {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: {
            pk,
            sk: `${ledger.environment}/${ledger.name}`,
            environment: ledger.environment,
            ledger: ledger.name,
            ...position,
          },
        }),
      );
    },
  };
}
