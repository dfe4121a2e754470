import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { JWK } from 'jose';
import { JWKS_ITEM_KEY, type JwksItem } from '../../bearer/jwks-item.js';
import { isConditionFailure } from '../../dynamo/errors.js';
import type { GeneratedKey } from './lifecycle.js';

const privateKey = (kid: string) => ({ pk: `SIGNING_KEY#${kid}`, sk: 'PRIVATE' });

/**
 * Signing keys in the auth table: the published set in one item (read by every service), each private key in
 * an item of its own that only the auth service's role may read. Every change to the set is one conditional
 * transaction, so concurrent writers cannot leave two current keys or an orphan private key.
 */
export class KeyStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async readSet(): Promise<JwksItem | undefined> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.table, Key: JWKS_ITEM_KEY, ConsistentRead: true }));
    return Item as JwksItem | undefined;
  }

  async readPrivateKey(kid: string): Promise<JWK | undefined> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.table, Key: privateKey(kid), ConsistentRead: true }));
    return Item?.jwk as JWK | undefined;
  }

  /** Writes the first set. False when another writer got there first. */
  async createSet(set: JwksItem, keys: GeneratedKey[]): Promise<boolean> {
    return this.transact([
      { Put: { TableName: this.table, Item: set, ConditionExpression: 'attribute_not_exists(pk)' } },
      ...keys.map((k) => this.putPrivate(k)),
    ]);
  }

  /** Replaces the set if nobody changed it since `expectedVersion`. False otherwise. */
  async replaceSet(set: JwksItem, expectedVersion: number, added: GeneratedKey, retired: string[]): Promise<boolean> {
    return this.transact([
      {
        Put: {
          TableName: this.table,
          Item: set,
          ConditionExpression: 'version = :v',
          ExpressionAttributeValues: { ':v': expectedVersion },
        },
      },
      this.putPrivate(added),
      ...retired.map((kid) => ({ Delete: { TableName: this.table, Key: privateKey(kid) } })),
    ]);
  }

  private putPrivate(key: GeneratedKey) {
    return {
      Put: {
        TableName: this.table,
        Item: { ...privateKey(key.kid), jwk: key.privateJwk, alg: key.alg, createdAt: key.createdAt },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  private async transact(items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>): Promise<boolean> {
    try {
      await this.doc.send(new TransactWriteCommand({ TransactItems: items }));
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }
}
