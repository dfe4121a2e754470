import { randomUUID } from 'node:crypto';
import { GetCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { Hono } from 'hono';
import { assembleLedgerApp } from '../../lib/assembly/ledger-app.js';
import { DEFAULT_ENVIRONMENT } from '../../lib/environments/environment-id.js';
import type { HonoTypes } from '../../lib/http/types.js';
import { parseJson } from '../../lib/json/bigint-json.js';
import type { EmbeddedChoice, LedgerAppOptions } from '../../lib/ledger/app.js';
import type { CreateTransactionInput } from '../../lib/ledger/commands/create-transaction.js';
import { ledgerKeys, registryKeys } from '../../lib/ledger/store/keys.js';
import { type LedgerEvent, ledgerEventsOfImage } from '../../lib/ledger/store/log-events.js';
import { EmbeddedGroupCommit } from '../../lib/ledger/write/embedded.js';
import type { Intent } from '../../lib/ledger/write/intent.js';
import { generatedDocuments } from '../../lib/openapi/generated-documents.js';
import type { ServiceRuntime } from '../../lib/runtime/runtime.js';
import { ADMIN, authApp, tokenFor } from './auth.js';
import { environmentToken as mintedEnvironmentToken } from './environment-tokens.js';
import { jsonCaller } from './json-call.js';
import { WAIT_LIMIT_MS } from './time-scale.js';

/** An environment token (test/support/environment-tokens.ts), by default with the ledger's scopes. */
export const environmentToken = (
  runtime: ServiceRuntime,
  environment: string,
  scopes: readonly string[] = ['ledger:read', 'ledger:write'],
): Promise<string> => mintedEnvironmentToken(runtime, environment, scopes);

/**
 * A ledger app with a write-scoped token, and a JSON caller that keeps big integers exact. The token is the
 * static admin client's (environment `default`), or with `environment` one minted for that environment.
 */
export async function ledgerClient(
  runtime: ServiceRuntime,
  options: Omit<Partial<LedgerAppOptions>, 'embedded'> & {
    environment?: string;
    app?: Hono<HonoTypes>;
    /** The embedded engine (its class is filled in). */
    embedded?: Partial<EmbeddedChoice>;
  } = {},
) {
  const { environment, app: shared, embedded, ...appOptions } = options;
  const app: Hono<HonoTypes> =
    shared ??
    assembleLedgerApp(runtime, {
      documents: generatedDocuments,
      ...appOptions,
      ...(embedded ? { embedded: { engine: EmbeddedGroupCommit, ...embedded } } : {}),
    });
  const token =
    environment === undefined
      ? await tokenFor(authApp(runtime), ADMIN)
      : await environmentToken(runtime, environment);
  return { app, call: jsonCaller(app, '/api/ledger', token), token };
}

export { stringify } from './json-call.js';

/**
 * The events a ledger's items carry, as its table's stream hands them to dispatch: those of its log items in log
 * order, then the mapping item's (the latest mapping change only: the item is overwritten). Each with the item
 * that carries it and its envelope parsed.
 */
export async function ledgerEventsOf(
  runtime: ServiceRuntime,
  name: string,
  table: string = runtime.config.tables.ledger,
  environment: string = DEFAULT_ENVIRONMENT,
): Promise<
  Array<LedgerEvent & { envelope: Record<string, unknown>; item: Record<string, unknown> }>
> {
  const ledger = { environment, name };
  const items: Record<string, unknown>[] = [];
  const pages = paginateQuery(
    { client: runtime.doc },
    {
      TableName: table,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': ledgerKeys.logPartition(ledger) },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) items.push(...(page.Items ?? []));
  const { Item: mapping } = await runtime.doc.send(
    new GetCommand({
      TableName: table,
      Key: ledgerKeys.mapping(ledger),
      ConsistentRead: true,
    }),
  );
  if (mapping) items.push(mapping);
  return items.flatMap((item) =>
    ledgerEventsOfImage(item).map((event) => ({
      ...event,
      envelope: parseJson(event.body) as Record<string, unknown>,
      item,
    })),
  );
}

/** A ledger of the default environment (the static test clients'), as keys name it. */
export const inDefault = (name: string) => ({ environment: DEFAULT_ENVIRONMENT, name });

/**
 * Every transaction item of a ledger as stored, in id order, whatever its layout: its registry record says how
 * its transactions are keyed, and blocks are read from 0 until one is empty (ids are gapless).
 */
export async function storedTransactionItems(
  runtime: ServiceRuntime,
  name: string,
  table: string = runtime.config.tables.ledger,
  environment: string = DEFAULT_ENVIRONMENT,
): Promise<Array<Record<string, unknown>>> {
  const { Item } = await runtime.doc.send(
    new GetCommand({
      TableName: runtime.config.tables.ledger,
      Key: registryKeys.ledger({ environment, name }),
      ConsistentRead: true,
    }),
  );
  const layout = Item?.transactionKeys as { blockIds: unknown; timeShards: unknown } | undefined;
  const ledger = {
    environment,
    name,
    ...(layout
      ? {
          transactionKeys: {
            blockIds: Number(layout.blockIds),
            timeShards: Number(layout.timeShards),
          },
        }
      : {}),
  };
  const items: Record<string, unknown>[] = [];
  for (let block = 0; ; block++) {
    const before = items.length;
    const pages = paginateQuery(
      { client: runtime.doc },
      {
        TableName: table,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': ledgerKeys.transactionBlock(ledger, block) },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) items.push(...(page.Items ?? []));
    // Block 0 may hold nothing yet, and a ledger without blocks has one partition.
    if ((items.length === before && block > 0) || !ledger.transactionKeys) return items;
  }
}

/** A relayed create of a transaction, as a group commit's writer receives it. */
export const createIntent = (ledger: string, input: CreateTransactionInput): Intent => ({
  reqId: randomUUID(),
  environment: DEFAULT_ENVIRONMENT,
  ledger,
  deadline: Date.now() + WAIT_LIMIT_MS,
  operation: { kind: 'create', input, options: { dryRun: false, force: false } },
});
