import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { leadingKeysPattern } from '../environments/key-scope.js';

/**
 * The isolation guard's key rule, checked in the process: every partition key a call names starts with
 * `E#<environment>#` — what the guard role's `dynamodb:LeadingKeys` condition holds in AWS
 * (infra/stacks/grants.ts, `leadingKeysCondition`), here for every environment client, with or without IAM, so
 * `npm start` and the tests refuse what AWS would. A call that names no key (a Scan) is refused too, as IAM
 * refuses it.
 */

/** The partition key attribute of every table (lib/resources/definitions.ts); an index's is `<index>pk`. */
const PARTITION = 'pk';

/** A document client command as the guard reads it: its input. */
export interface GuardedCommand {
  input: unknown;
}

export class EnvironmentKeyError extends Error {
  override readonly name = 'EnvironmentKeyError';
}

/**
 * What a call names outside the environment: each partition key that does not start with its prefix (or
 * `(no key)` for a call naming none). Empty when the call keeps to the environment.
 */
export function keysOutside(environment: string, command: GuardedCommand): string[] {
  const prefix = leadingKeysPattern(environment).slice(0, -1);
  const keys = partitionKeys((command.input ?? {}) as Input);
  if (keys.length === 0) return ['(no key)'];
  return keys.filter((key) => typeof key !== 'string' || !key.startsWith(prefix)).map(String);
}

type Item = Record<string, unknown> | undefined;
interface Input {
  Key?: Item;
  Item?: Item;
  IndexName?: string;
  KeyConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
  RequestItems?: Record<string, unknown>;
  TransactItems?: Array<Record<string, { Key?: Item; Item?: Item }>>;
}

/**
 * Each partition key value a command names, read from its input's shape (one shape per kind of call: a class name
 * would not survive minifying, and importing every command class would grow every bundle).
 */
function partitionKeys(input: Input): unknown[] {
  if (input.TransactItems)
    return input.TransactItems.flatMap((entry) =>
      Object.values(entry).map((op) => (op.Key ?? op.Item)?.[PARTITION]),
    );
  if (input.RequestItems)
    return Object.values(input.RequestItems).flatMap((request) =>
      Array.isArray(request)
        ? (request as Array<{ PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }>).map(
            (w) => (w.PutRequest?.Item ?? w.DeleteRequest?.Key)?.[PARTITION],
          )
        : ((request as { Keys?: Item[] }).Keys ?? []).map((key) => key?.[PARTITION]),
    );
  if (input.KeyConditionExpression !== undefined) return [queriedPartition(input)];
  if (input.Key) return [input.Key[PARTITION]];
  if (input.Item) return [input.Item[PARTITION]];
  return [];
}

/** The value a Query's key condition gives the partition key (of the table, or of the index it names). */
function queriedPartition(input: Input): unknown {
  const attribute = input.IndexName ? `${input.IndexName}${PARTITION}` : PARTITION;
  const names = input.ExpressionAttributeNames ?? {};
  for (const match of (input.KeyConditionExpression ?? '').matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
    const name = match[1]!.startsWith('#') ? names[match[1]!] : match[1];
    if (name === attribute) return input.ExpressionAttributeValues?.[match[2]!];
  }
  return undefined;
}

/**
 * `client` for one environment: every `send` is checked first, and a call naming another environment's keys (or
 * none) fails before anything is sent. Everything but `send` is the client's own.
 */
export function prefixGuarded(
  client: DynamoDBDocumentClient,
  environment: string,
): DynamoDBDocumentClient {
  const send = (command: GuardedCommand, ...rest: unknown[]) => {
    const outside = keysOutside(environment, command);
    if (outside.length > 0)
      return Promise.reject(
        new EnvironmentKeyError(
          `a call in environment ${environment} names ${outside.join(', ')}, outside ${leadingKeysPattern(environment)}`,
        ),
      );
    return Reflect.apply(client.send, client, [command, ...rest]);
  };
  return new Proxy(client, {
    get: (target, property, receiver) =>
      property === 'send' ? send : Reflect.get(target, property, receiver),
  });
}
