import { GetCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { Hono } from 'hono';
import type { AppEnv } from '../../lib/http/types.js';
import { parseJson } from '../../lib/json/bigint-json.js';
import { createLedgerApp, type LedgerAppOptions } from '../../lib/ledger/app.js';
import { type LedgerEvent, ledgerEventsOfImage } from '../../lib/ledger/store/log-events.js';
import { generatedDocuments } from '../../lib/openapi/generated-documents.js';
import type { ServiceRuntime } from '../../lib/runtime/runtime.js';
import { ADMIN, authApp, tokenFor } from './auth.js';

/** A ledger app with a write-scoped token, and a JSON caller that keeps big integers exact. */
export async function ledgerClient(
  runtime: ServiceRuntime,
  options: Partial<LedgerAppOptions> = {},
) {
  const app: Hono<AppEnv> = createLedgerApp(runtime, { documents: generatedDocuments, ...options });
  const token = await tokenFor(authApp(runtime), ADMIN);
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await app.request(`/api/ledger${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : stringify(body) } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      text,
      body: text ? (parseJson(text) as any) : undefined,
    };
  };
  return { app, call };
}

/** JSON.stringify with bigints written as bare numbers. */
export function stringify(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `__big__${v}` : v)).replace(
    /"__big__(-?\d+)"/g,
    '$1',
  );
}

/**
 * The events a ledger's items carry, as its table's stream hands them to dispatch: those of its log items in log
 * order, then the mapping item's (the latest mapping change only: the item is overwritten). Each with the item
 * that carries it and its envelope parsed.
 */
export async function ledgerEventsOf(
  runtime: ServiceRuntime,
  ledger: string,
  table: string = runtime.config.tables.ledger,
): Promise<
  Array<LedgerEvent & { envelope: Record<string, unknown>; item: Record<string, unknown> }>
> {
  const items: Record<string, unknown>[] = [];
  const pages = paginateQuery(
    { client: runtime.doc },
    {
      TableName: table,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': `L#${ledger}#LOG` },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) items.push(...(page.Items ?? []));
  const { Item: mapping } = await runtime.doc.send(
    new GetCommand({
      TableName: table,
      Key: { pk: `L#${ledger}`, sk: 'MAPPING' },
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
