import type { Hono } from 'hono';
import * as v from 'valibot';
import { NotFoundError } from '../../errors/index.js';
import { environmentOf } from '../../http/environment.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { parseJson } from '../../json/bigint-json.js';
import { openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { metadataMap } from '../../validation/common.js';
import { validate } from '../../validation/validate.js';
import { isPaymentId, paymentId, recordPayment, withMetadata } from '../domain/payment.js';
import { PAYMENTS_LIST, type PaymentStore } from '../store/payment-store.js';
import {
  metadataPatch,
  paymentFilterSchema,
  paymentInputSchema,
  toPaymentInput,
} from './requests.js';
import { paymentData, paymentPage } from './schemas.js';

const FILTERS = ['status', 'type', 'connectorID'] as const;

export interface PaymentRoutesDeps {
  /** An environment's payments. */
  storeOf: (environment: string) => PaymentStore;
}

/**
 * Payments (docs/api.md §6): create or update, get, list, metadata; each in the token's environment, where another
 * environment's payment is as unknown as one never made, even with the same id.
 */
export function paymentRoutes(app: Hono<HonoTypes>, deps: PaymentRoutesDeps): void {
  v3CreatePaymentRoute(app, deps);
  v3GetPaymentRoute(app, deps);
  v3UpdatePaymentMetadataRoute(app, deps);
  v3ListPaymentsRoute(app, deps);
}

function v3CreatePaymentRoute(app: Hono<HonoTypes>, { storeOf }: PaymentRoutesDeps): void {
  app.post(
    '/v3/payments',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3CreatePayment',
        summary: 'Create or update a payment',
        description:
          'The same `(connectorID, reference, type)` updates the existing payment. Emits `payments.saved_payment`.',
        tags: ['payments'],
        body: paymentInputSchema,
        responses: { 201: { description: 'The payment.', schema: paymentData } },
      },
    ),
    async (c) => {
      const input = toPaymentInput(await readJsonBody(c, paymentInputSchema, { parse: parseJson }));
      const id = paymentId(input.connectorID, input.reference, input.type);
      const { payment } = await storeOf(environmentOf(c)).save(id, (current) =>
        recordPayment(current, input),
      );
      return jsonResponse(c, { data: payment }, 201);
    },
  );
}

function v3GetPaymentRoute(app: Hono<HonoTypes>, { storeOf }: PaymentRoutesDeps): void {
  app.get(
    '/v3/payments/:id',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetPayment',
        summary: 'Get a payment',
        tags: ['payments'],
        responses: { 200: { description: 'The payment.', schema: paymentData } },
      },
    ),
    async (c) => {
      const id = readPaymentId(c.req.param('id'));
      const payment = await storeOf(environmentOf(c)).get(id);
      if (!payment) throw notFound(id);
      return jsonResponse(c, { data: payment });
    },
  );
}

function v3UpdatePaymentMetadataRoute(app: Hono<HonoTypes>, { storeOf }: PaymentRoutesDeps): void {
  app.patch(
    '/v3/payments/:id/metadata',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3UpdatePaymentMetadata',
        summary: "Set a payment's metadata",
        description: 'Merged into the existing metadata.',
        tags: ['payments'],
        body: metadataMap,
        responses: { 204: { description: 'Saved.' } },
      },
    ),
    async (c) => {
      const id = readPaymentId(c.req.param('id'));
      const metadata = metadataPatch(await readJsonBody(c, v.unknown()));
      await storeOf(environmentOf(c)).save(id, (current) => {
        if (!current) throw notFound(id);
        return withMetadata(current, metadata);
      });
      return c.body(null, 204);
    },
  );
}

function v3ListPaymentsRoute(app: Hono<HonoTypes>, { storeOf }: PaymentRoutesDeps): void {
  app.get(
    '/v3/payments',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListPayments',
        summary: 'List payments',
        tags: ['payments'],
        parameters: [
          ...PAGE_PARAMETERS,
          query('status', 'Only payments in this status.'),
          query('type', 'Only payments of this type.'),
          query('connectorID', 'Only payments of this connector.'),
        ],
        responses: { 200: { description: 'A page of payments.', schema: paymentPage } },
      },
    ),
    async (c) => {
      const query = readListQuery(c.req.query(), PAYMENTS_LIST, FILTERS);
      // A cursor carries the listing's filters; without one they come from the query string.
      const params = query.cursor ? (query.cursor.f ?? {}) : c.req.query();
      const filter = validate(
        paymentFilterSchema,
        Object.fromEntries(
          FILTERS.filter((f) => params[f] !== undefined).map((f) => [f, params[f]]),
        ),
        'query',
      );
      const page = await storeOf(environmentOf(c)).list(query, filter);
      return jsonResponse(c, { cursor: page });
    },
  );
}

/** A path id that cannot be a payment id is answered like an unknown one, without a read. */
function readPaymentId(raw: string): string {
  if (!isPaymentId(raw)) throw notFound(raw);
  return raw;
}

const notFound = (id: string) => new NotFoundError(`payment ${id.slice(0, 64)} not found`);
