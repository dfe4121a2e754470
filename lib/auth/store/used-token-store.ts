import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../../dynamo/errors.js';
import { tokenDigest } from '../domain/token-digest.js';
import { usedTokenKey } from './keys.js';

/**
 * Subject tokens and assertions the token endpoint has accepted (RFC 7523 §3: single use). One conditional put per
 * token, keyed by its digest: of two requests with the same token, however close, exactly one records it. The item
 * expires (TTL) once the token would be refused as expired anyway.
 */
export class UsedTokenStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** True the first time a token is presented; false for a replay. */
  async claim(token: string, expiresAtSeconds: number): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...usedTokenKey(tokenDigest(token)), expiresAt: expiresAtSeconds },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }
}
