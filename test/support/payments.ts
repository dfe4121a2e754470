import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Hono } from 'hono';
import { createDocumentClient } from '../../lib/dynamo/client.js';
import type { HonoTypes } from '../../lib/http/types.js';
import { parseJson } from '../../lib/json/bigint-json.js';
import { generatedDocuments } from '../../lib/openapi/generated-documents.js';
import { createPaymentsApp, type PaymentsAppOptions } from '../../lib/payments/app.js';
import type { ServiceRuntime } from '../../lib/runtime/runtime.js';
import { ADMIN, authApp, tokenFor } from './auth.js';
import { type JsonCall, jsonCaller } from './json-call.js';

export type PaymentsCall = JsonCall;

/**
 * A payments app and a JSON caller that keeps big integers exact. `scope` narrows the token (default: every
 * scope of the admin client). A string body is sent verbatim, so tests can write raw JSON (39-digit numbers).
 */
export async function paymentsClient(
  runtime: ServiceRuntime,
  options: Partial<PaymentsAppOptions> & { scope?: string } = {},
) {
  const { scope, ...appOptions } = options;
  const app: Hono<HonoTypes> = createPaymentsApp(runtime, {
    documents: generatedDocuments,
    ...appOptions,
  });
  const token = await tokenFor(authApp(runtime), ADMIN, scope);
  const caller = (bearerToken: string): PaymentsCall =>
    jsonCaller(app, '/api/payments', bearerToken);
  return { app, call: caller(token), as: caller };
}

let sequence = 0;

/** A valid create body with a fresh reference; `overrides` replace fields (undefined removes one). */
export function paymentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    reference: `ref-${Date.now().toString(36)}-${++sequence}`,
    connectorID: 'stripe-main',
    type: 'PAY-IN',
    amount: 1000n,
    asset: 'EUR/2',
    scheme: 'CARD_VISA',
    createdAt: '2026-11-22T10:04:05.123456Z',
    ...overrides,
  };
  for (const [k, v] of Object.entries(body)) if (v === undefined) delete body[k];
  return body;
}

const readers = new WeakMap<ServiceRuntime, DynamoDBDocumentClient>();

/** Every item of a table, read consistently, numbers as bigint (tests only: tables hold a few dozen items). */
export async function scanTable(
  runtime: ServiceRuntime,
  table: string,
): Promise<Record<string, unknown>[]> {
  if (!readers.has(runtime))
    readers.set(runtime, createDocumentClient(runtime.connection, { bigintNumbers: true }));
  const doc = readers.get(runtime)!;
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: table,
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...((page.Items ?? []) as Record<string, unknown>[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The `payments.saved_payment` event rows of one payment, oldest version first, with their envelopes parsed. */
export async function paymentEvents(runtime: ServiceRuntime, paymentId: string) {
  const rows = (await scanTable(runtime, runtime.config.tables.events)).filter(
    (r) => r.paymentId === paymentId,
  );
  return rows
    .sort((a, b) => Number(a.paymentVersion) - Number(b.paymentVersion))
    .map((row) => ({ row, envelope: parseJson(String(row.body)) as any }));
}

/** Counts of what is stored: payments table items (payments and index items) and event rows. */
export async function storedCounts(runtime: ServiceRuntime) {
  return {
    payments: (await scanTable(runtime, runtime.config.tables.payments)).length,
    events: (await scanTable(runtime, runtime.config.tables.events)).length,
  };
}
