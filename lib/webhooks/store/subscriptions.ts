import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { subscriptionPartition, subscriptionsVersionKey } from './keys.js';

/**
 * What dispatch reads of one environment's configs: the subscription items and their version (keys.ts), which the
 * config store writes in every change's transaction. Both reads are strongly consistent: a config change that has
 * returned is seen by the next read. Another environment's configs are other partitions, never read.
 */
export class Subscriptions {
  constructor(
    private readonly options: { doc: DynamoDBDocumentClient; table: string; environment: string },
  ) {}

  /** The subscriptions version: it moves with every change of subscription items. */
  async version(): Promise<number> {
    const { Item } = await this.options.doc.send(
      new GetCommand({
        TableName: this.options.table,
        Key: subscriptionsVersionKey(this.options.environment),
        ConsistentRead: true,
      }),
    );
    return Number(Item?.n ?? 0);
  }

  /** The ids of the active configs subscribed to `kind`: one Query of its subscription partition. */
  async activeConfigIds(kind: string): Promise<string[]> {
    const ids: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.options.doc.send(
        new QueryCommand({
          TableName: this.options.table,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: {
            ':p': subscriptionPartition(this.options.environment, kind),
          },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? [])
        if (item.active === true && typeof item.configId === 'string') ids.push(item.configId);
      start = page.LastEvaluatedKey;
    } while (start);
    return ids;
  }
}
