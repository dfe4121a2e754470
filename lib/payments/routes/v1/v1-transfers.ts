import type { Hono } from 'hono';
import { readJsonBody } from '../../../http/json-body.js';
import { jsonResponse } from '../../../http/json-response.js';
import type { HonoTypes } from '../../../http/types.js';
import { openapi, PAGE_PARAMETERS } from '../../../openapi/describe.js';
import { readListQuery } from '../../../pagination/cursor.js';
import {
  approveInitiation,
  createInitiation,
  deleteInitiation,
  rejectInitiation,
  requireInitiation,
  retryInitiation,
  reverseInitiation,
} from '../../commands/payment-initiations.js';
import type { RunnerDeps } from '../../connectors/runner.js';
import type { Payment } from '../../domain/payment.js';
import type { PaymentInitiation } from '../../domain/payment-initiation.js';
import {
  initiationOfV1,
  transferInitiationV1Detail,
  transferInitiationV1View,
} from '../../domain/v1/v1-transfers.js';
import { PAYMENT_INITIATION_KIND } from '../../store/kinds.js';
import type { PaymentsStores } from '../../store/stores.js';
import type { StoresOf } from '../stores-of.js';
import {
  reversalV1InputSchema,
  transferInitiationV1InputSchema,
  transferStatusV1InputSchema,
} from './v1-requests.js';
import {
  transferInitiationV1Data,
  transferInitiationV1DetailData,
  transferInitiationV1Page,
} from './v1-schemas.js';

const TAG = ['payments v1'];

async function detail(stores: PaymentsStores, pi: PaymentInitiation) {
  const payments = await Promise.all(
    pi.relatedPayments.map((r) => stores.payments.get(r.paymentID)),
  );
  const byId = new Map<string, Payment>();
  for (const p of payments) if (p) byId.set(p.id, p);
  return transferInitiationV1Detail(pi, byId);
}

/** v1 transfer initiations (docs/api.md §6.1): v3's payment initiations in v1's shape and statuses. */
export function transferInitiationV1Routes(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  v1CreateTransferInitiationRoute(app, storesOf, deps);
  v1ListTransferInitiationsRoute(app, storesOf);
  v1GetTransferInitiationRoute(app, storesOf);
  v1DeleteTransferInitiationRoute(app, storesOf);
  transferDecisionV1Routes(app, storesOf, deps);
}

function v1CreateTransferInitiationRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    '/transfer-initiations',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1CreateTransferInitiation',
        summary: 'Create a transfer initiation (v1)',
        description:
          'As `POST /v3/payment-initiations`; `validated: true` sends it at once (no approval). Emits `payments.saved_payment_initiation`.',
        tags: TAG,
        body: transferInitiationV1InputSchema,
        responses: {
          200: { description: 'The transfer initiation.', schema: transferInitiationV1Data },
        },
      },
    ),
    async (c) => {
      const body = await readJsonBody(c, transferInitiationV1InputSchema);
      const input = initiationOfV1({ ...body, sourceAccountID: body.sourceAccountID ?? undefined });
      const { initiation } = await createInitiation(storesOf(c), input, body.validated, deps);
      return jsonResponse(c, { data: transferInitiationV1View(initiation) });
    },
  );
}

function v1ListTransferInitiationsRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/transfer-initiations',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1ListTransferInitiations',
        summary: 'List transfer initiations (v1)',
        tags: TAG,
        parameters: PAGE_PARAMETERS,
        responses: {
          200: { description: 'A page, oldest first.', schema: transferInitiationV1Page },
        },
      },
    ),
    async (c) => {
      const page = await storesOf(c).initiations.list(
        readListQuery(c.req.query(), PAYMENT_INITIATION_KIND.list),
      );
      return jsonResponse(c, {
        cursor: { ...page, data: page.data.map(transferInitiationV1View) },
      });
    },
  );
}

function v1GetTransferInitiationRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/transfer-initiations/:transferId',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1GetTransferInitiation',
        summary: 'Get a transfer initiation (v1)',
        description: 'With its adjustments (newest first) and the payments it produced.',
        tags: TAG,
        responses: {
          200: { description: 'The transfer initiation.', schema: transferInitiationV1DetailData },
        },
      },
    ),
    async (c) => {
      const stores = storesOf(c);
      const pi = await requireInitiation(stores, c.req.param('transferId'));
      return jsonResponse(c, { data: await detail(stores, pi) });
    },
  );
}

function v1DeleteTransferInitiationRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.delete(
    '/transfer-initiations/:transferId',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1DeleteTransferInitiation',
        summary: 'Delete a transfer initiation waiting for validation (v1)',
        tags: TAG,
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    async (c) => {
      await deleteInitiation(storesOf(c), c.req.param('transferId'));
      return c.body(null, 204);
    },
  );
}

function transferDecisionV1Routes(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  v1UpdateTransferInitiationStatusRoute(app, storesOf, deps);
  v1RetryTransferInitiationRoute(app, storesOf, deps);
  v1ReverseTransferInitiationRoute(app, storesOf, deps);
}

function v1UpdateTransferInitiationStatusRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    '/transfer-initiations/:transferId/status',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1UpdateTransferInitiationStatus',
        summary: 'Approve (VALIDATED) or reject (REJECTED) a transfer initiation (v1)',
        description:
          'Only while it waits for validation. VALIDATED sends it through its connector now (or at its `scheduledAt`).',
        tags: TAG,
        body: transferStatusV1InputSchema,
        responses: { 204: { description: 'Done.' } },
      },
    ),
    async (c) => {
      const { status } = await readJsonBody(c, transferStatusV1InputSchema);
      const id = c.req.param('transferId');
      if (status === 'VALIDATED') await approveInitiation(storesOf(c), id, deps);
      else await rejectInitiation(storesOf(c), id);
      return c.body(null, 204);
    },
  );
}

function v1RetryTransferInitiationRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    '/transfer-initiations/:transferId/retry',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1RetryTransferInitiation',
        summary: 'Retry a failed transfer initiation (v1)',
        tags: TAG,
        responses: { 204: { description: 'Sent again.' } },
      },
    ),
    async (c) => {
      await retryInitiation(storesOf(c), c.req.param('transferId'), deps);
      return c.body(null, 204);
    },
  );
}

function v1ReverseTransferInitiationRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    '/transfer-initiations/:transferId/reverse',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v1ReverseTransferInitiation',
        summary: 'Reverse (part of) a processed transfer initiation (v1)',
        description:
          "In the initiation's asset, never more than is left to reverse, one reversal at a time.",
        tags: TAG,
        body: reversalV1InputSchema,
        responses: { 204: { description: 'Reversal sent.' } },
      },
    ),
    async (c) => {
      const body = await readJsonBody(c, reversalV1InputSchema);
      await reverseInitiation(
        storesOf(c),
        c.req.param('transferId'),
        { ...body, metadata: body.metadata ?? {} },
        deps,
      );
      return c.body(null, 204);
    },
  );
}
