import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { JSONWebKeySet } from 'jose';
import { JWKS_ITEM_KEY, type JwksItem } from '../tokens/jwks-item.js';
import type { PublicKeyLoader } from './token-verifier.js';

/** Reads the published public keys from the auth table (one GetItem). No keys yet → an empty set. */
export function jwksTableLoader(doc: DynamoDBDocumentClient, authTable: string): PublicKeyLoader {
  return async () => {
    const { Item } = await doc.send(
      new GetCommand({ TableName: authTable, Key: JWKS_ITEM_KEY, ConsistentRead: true }),
    );
    const item = Item as JwksItem | undefined;
    return { keys: (item?.keys ?? []).map((k) => k.jwk) } as JSONWebKeySet;
  };
}
