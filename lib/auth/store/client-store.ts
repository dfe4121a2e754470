import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../../dynamo/errors.js';
import { queryPage } from '../../dynamo/paginate.js';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import { DEFAULT_CLIENT_SCOPES } from '../../tokens/scopes.js';
import {
  type ClientInput,
  MAX_SECRETS_PER_CLIENT,
  type StoredClient,
  type StoredSecret,
} from '../domain/client.js';
import { clientDirectoryKey, clientKey, clientListPartition, clientListSort } from './keys.js';

/**
 * Dynamic OAuth clients in the auth table: one item per client in its environment's partition (secrets, digests
 * only, inside it), and a shared directory item naming that environment, for the token endpoint. Every method
 * works within one environment: another environment's client is not found.
 */
export class ClientStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async get(environment: string, id: string): Promise<StoredClient | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: clientKey(environment, id),
        ConsistentRead: true,
      }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  /** The environment a client id belongs to (one read of the shared directory), for the token endpoint. */
  async environmentOf(id: string): Promise<string | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: clientDirectoryKey(id), ConsistentRead: true }),
    );
    return typeof Item?.environment === 'string' ? Item.environment : undefined;
  }

  /** The client and its directory item, in one transaction: neither exists without the other. */
  async create(environment: string, client: StoredClient): Promise<void> {
    await this.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: this.table,
              Item: {
                ...clientKey(environment, client.id),
                gsi1pk: clientListPartition(environment),
                gsi1sk: clientListSort(client.createdAt, client.id),
                ...client,
                environment,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: this.table,
              Item: { ...clientDirectoryKey(client.id), environment },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
  }

  async list(environment: string, query: ListQuery): Promise<Page<StoredClient>> {
    return queryPage(
      this.doc,
      {
        input: {
          TableName: this.table,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': clientListPartition(environment) },
        },
        keyAttributes: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
        list: 'auth.clients',
        ascending: true,
      },
      query,
      fromItem,
    );
  }

  /** Full replace of the client's options (absent ones take their defaults); its secrets are kept. */
  async replace(
    environment: string,
    id: string,
    input: ClientInput,
    now: string,
  ): Promise<StoredClient> {
    const set = ['#name = :name', 'scopes = :scopes', 'metadata = :metadata', 'updatedAt = :now'];
    const remove: string[] = [];
    const values: Record<string, unknown> = {
      ':name': input.name,
      ':scopes': input.scopes ?? DEFAULT_CLIENT_SCOPES,
      ':metadata': input.metadata ?? {},
      ':now': now,
    };
    if (input.description !== undefined) {
      set.push('description = :description');
      values[':description'] = input.description;
    } else remove.push('description');
    if (input.accessTokenLifetime !== undefined) {
      set.push('accessTokenLifetime = :lifetime');
      values[':lifetime'] = input.accessTokenLifetime;
    } else remove.push('accessTokenLifetime');
    const result = await this.update(environment, id, {
      UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: values,
      ConditionExpression: 'attribute_exists(pk)',
    });
    if (!result) throw clientNotFound(id);
    return result;
  }

  /** The client and its directory item, in one transaction. */
  async delete(environment: string, id: string): Promise<void> {
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.table,
                Key: clientKey(environment, id),
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
            {
              Delete: {
                TableName: this.table,
                Key: clientDirectoryKey(id),
                ConditionExpression: 'environment = :env',
                ExpressionAttributeValues: { ':env': environment },
              },
            },
          ],
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) throw clientNotFound(id);
      throw err;
    }
  }

  async addSecret(environment: string, id: string, secret: StoredSecret): Promise<void> {
    const result = await this.update(environment, id, {
      UpdateExpression: 'SET secrets.#sid = :secret, updatedAt = :now',
      ExpressionAttributeNames: { '#sid': secret.id },
      ExpressionAttributeValues: {
        ':secret': secret,
        ':now': secret.createdAt,
        ':max': MAX_SECRETS_PER_CLIENT,
      },
      ConditionExpression: 'attribute_exists(pk) AND size(secrets) < :max',
    });
    if (result) return;
    // The condition failed: tell a missing client from a full one.
    await this.mustGet(environment, id);
    throw new ValidationError(
      `a client has at most ${MAX_SECRETS_PER_CLIENT} secrets; delete one first`,
    );
  }

  async deleteSecret(
    environment: string,
    id: string,
    secretId: string,
    now: string,
  ): Promise<void> {
    const result = await this.update(environment, id, {
      UpdateExpression: 'REMOVE secrets.#sid SET updatedAt = :now',
      ExpressionAttributeNames: { '#sid': secretId },
      ExpressionAttributeValues: { ':now': now },
      ConditionExpression: 'attribute_exists(secrets.#sid)',
    });
    if (!result) {
      await this.mustGet(environment, id);
      throw new NotFoundError(`secret ${secretId} not found`);
    }
  }

  /** Records a secret's last use. A secret revoked meanwhile is left alone (the condition fails quietly). */
  async touchSecret(environment: string, id: string, secretId: string, now: string): Promise<void> {
    await this.update(environment, id, {
      UpdateExpression: 'SET secrets.#sid.lastUsedAt = :now',
      ExpressionAttributeNames: { '#sid': secretId },
      ExpressionAttributeValues: { ':now': now },
      ConditionExpression: 'attribute_exists(secrets.#sid)',
    });
  }

  private async mustGet(environment: string, id: string): Promise<StoredClient> {
    const client = await this.get(environment, id);
    if (!client) throw clientNotFound(id);
    return client;
  }

  /** An update returning the new client, or undefined when its condition failed. */
  private async update(
    environment: string,
    id: string,
    input: Pick<
      ConstructorParameters<typeof UpdateCommand>[0],
      | 'UpdateExpression'
      | 'ExpressionAttributeNames'
      | 'ExpressionAttributeValues'
      | 'ConditionExpression'
    >,
  ): Promise<StoredClient | undefined> {
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: clientKey(environment, id),
          ReturnValues: 'ALL_NEW',
          ...input,
        }),
      );
      return Attributes ? fromItem(Attributes) : undefined;
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw err;
    }
  }
}

export function fromItem(item: Record<string, unknown>): StoredClient {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, ...client } = item;
  return client as unknown as StoredClient;
}

const clientNotFound = (id: string) => new NotFoundError(`client ${id} not found`);
