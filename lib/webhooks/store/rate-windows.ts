import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { rateWindowKey } from './keys.js';

/** A window item outlives its second by this much: DynamoDB's TTL then removes it. */
const WINDOW_TTL_SECONDS = 120;

/**
 * The per-second windows of configs' rate limits: one counter item per config and second, in the config's
 * partition. `take` adds one and answers the number taken (1 for the first attempt of the second).
 */
export class RateWindows {
  constructor(
    private readonly options: { doc: DynamoDBDocumentClient; table: string; environment: string },
  ) {}

  async take(configId: string, second: number): Promise<number> {
    const { doc, table, environment } = this.options;
    const { Attributes } = await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: rateWindowKey(environment, configId, second),
        UpdateExpression: 'ADD #n :one SET expiresAt = if_not_exists(expiresAt, :ttl)',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':one': 1, ':ttl': second + WINDOW_TTL_SECONDS },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.n);
  }
}
