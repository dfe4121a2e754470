import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { JWK } from 'jose';
import { isConditionFailure } from '../../dynamo/errors.js';
import type { TransactItem } from '../../dynamo/transact-item.js';
import { JWKS_ITEM_KEY, type JwksItem } from '../../tokens/jwks-item.js';
import type { GeneratedKey } from '../keys/lifecycle.js';
import {
  CLEAR_KEYS,
  type PrivateKeyVault,
  type StoredPrivateKey,
} from '../keys/private-key-vault.js';
import { privateKeyKey } from './keys.js';

/**
 * Signing keys in the auth table: the published set in one item (read by every service), each private key in
 * an item of its own that only the auth service's role may read, sealed by `vault` (KMS in the deployed stack).
 * Every change to the set is one conditional transaction, so concurrent writers cannot leave two current keys
 * or an orphan private key; keys are sealed before it, so a vault failure writes nothing.
 */
export class KeyStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly vault: PrivateKeyVault = CLEAR_KEYS,
  ) {}

  async readSet(): Promise<JwksItem | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: JWKS_ITEM_KEY, ConsistentRead: true }),
    );
    return Item as JwksItem | undefined;
  }

  async readPrivateKey(kid: string): Promise<JWK | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: privateKeyKey(kid), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    return this.vault.open(
      kid,
      (Item.sealed ? { sealed: Item.sealed } : { jwk: Item.jwk }) as StoredPrivateKey,
    );
  }

  /** Writes the first set. False when another writer got there first. */
  async createSet(set: JwksItem, keys: GeneratedKey[]): Promise<boolean> {
    const puts = await Promise.all(keys.map((k) => this.putPrivate(k)));
    return this.transact([
      {
        Put: {
          TableName: this.table,
          Item: { ...set },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...puts,
    ]);
  }

  /** Replaces the set if nobody changed it since `expectedVersion`. False otherwise. */
  async replaceSet(
    set: JwksItem,
    expectedVersion: number,
    added: GeneratedKey,
    retired: string[],
  ): Promise<boolean> {
    const put = await this.putPrivate(added);
    return this.transact([
      {
        Put: {
          TableName: this.table,
          Item: { ...set },
          ConditionExpression: 'version = :v',
          ExpressionAttributeValues: { ':v': expectedVersion },
        },
      },
      put,
      ...retired.map((kid) => ({ Delete: { TableName: this.table, Key: privateKeyKey(kid) } })),
    ]);
  }

  private async putPrivate(key: GeneratedKey): Promise<TransactItem> {
    const stored = await this.vault.seal(key.kid, key.privateJwk);
    return {
      Put: {
        TableName: this.table,
        Item: { ...privateKeyKey(key.kid), ...stored, alg: key.alg, createdAt: key.createdAt },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  private async transact(items: TransactItem[]): Promise<boolean> {
    try {
      await this.doc.send(new TransactWriteCommand({ TransactItems: items }));
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }
}
