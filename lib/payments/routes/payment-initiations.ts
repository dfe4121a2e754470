import type { Hono } from 'hono';
import { ValidationError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import { jsonResponse } from '../../http/json-response.js';
import type { HonoTypes } from '../../http/types.js';
import { openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import {
  approveInitiation,
  createInitiation,
  deleteInitiation,
  rejectInitiation,
  requireInitiation,
  retryInitiation,
  reverseInitiation,
} from '../commands/payment-initiations.js';
import type { RunnerDeps } from '../connectors/runner.js';
import { adjustmentView, initiationView } from '../domain/payment-initiation.js';
import { PAYMENT_INITIATION_KIND } from '../store/kinds.js';
import { arrayPage } from './array-page.js';
import {
  initiationInputSchema,
  reversalInputSchema,
  toInitiationInput,
} from './initiation-requests.js';
import {
  initiationAdjustmentPage,
  initiationCreated,
  initiationData,
  initiationPage,
  paymentPage,
  reversalCreated,
  taskIdData,
} from './schemas.js';
import type { StoresOf } from './stores-of.js';

const ADJUSTMENTS_LIST = 'payment-initiation-adjustments';
const RELATED_LIST = 'payment-initiation-payments';

/** `?noValidation=true` sends an initiation at once; anything else but `false` is a 400. */
function noValidationOf(raw: string | undefined): boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ValidationError('noValidation: must be true or false');
}

/** Payment initiations (docs/api.md §6): transfers and payouts, approved, sent through a connector, reversed. */
export function paymentInitiationRoutes(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  v3InitiatePaymentRoute(app, storesOf, deps);
  v3ListPaymentInitiationsRoute(app, storesOf);
  v3GetPaymentInitiationRoute(app, storesOf);
  v3DeletePaymentInitiationRoute(app, storesOf);
  decisionRoutes(app, storesOf, deps);
  historyRoutes(app, storesOf);
}

function v3InitiatePaymentRoute(app: Hono<HonoTypes>, storesOf: StoresOf, deps: RunnerDeps): void {
  app.post(
    '/v3/payment-initiations',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3InitiatePayment',
        summary: 'Initiate a transfer or payout',
        description:
          'It waits for validation (approve or reject), unless `noValidation=true` sends it at once. Emits `payments.saved_payment_initiation` and `payments.saved_payment_initiation_adjustment`.',
        tags: ['payment-initiations'],
        parameters: [
          query('noValidation', 'Send it at once, without approval.', { type: 'boolean' }),
        ],
        body: initiationInputSchema,
        responses: {
          202: { description: 'Its id (and the task sending it).', schema: initiationCreated },
        },
      },
    ),
    async (c) => {
      const noValidation = noValidationOf(c.req.query('noValidation'));
      const input = toInitiationInput(await readJsonBody(c, initiationInputSchema));
      const { initiation, task } = await createInitiation(storesOf(c), input, noValidation, deps);
      return jsonResponse(
        c,
        { data: { paymentInitiationID: initiation.id, ...(task ? { taskID: task.id } : {}) } },
        202,
      );
    },
  );
}

function v3ListPaymentInitiationsRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/payment-initiations',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListPaymentInitiations',
        summary: 'List payment initiations',
        tags: ['payment-initiations'],
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page, oldest first.', schema: initiationPage } },
      },
    ),
    async (c) => {
      const page = await storesOf(c).initiations.list(
        readListQuery(c.req.query(), PAYMENT_INITIATION_KIND.list),
      );
      return jsonResponse(c, { cursor: { ...page, data: page.data.map(initiationView) } });
    },
  );
}

function v3GetPaymentInitiationRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/payment-initiations/:paymentInitiationID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3GetPaymentInitiation',
        summary: 'Get a payment initiation',
        description: 'Its status and error are those of its newest adjustment.',
        tags: ['payment-initiations'],
        responses: { 200: { description: 'The initiation.', schema: initiationData } },
      },
    ),
    async (c) => {
      const pi = await requireInitiation(storesOf(c), c.req.param('paymentInitiationID'));
      return jsonResponse(c, { data: initiationView(pi) });
    },
  );
}

function v3DeletePaymentInitiationRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.delete(
    '/v3/payment-initiations/:paymentInitiationID',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3DeletePaymentInitiation',
        summary: 'Delete a payment initiation waiting for validation',
        tags: ['payment-initiations'],
        responses: { 204: { description: 'Deleted.' } },
      },
    ),
    async (c) => {
      await deleteInitiation(storesOf(c), c.req.param('paymentInitiationID'));
      return c.body(null, 204);
    },
  );
}

function decisionRoutes(app: Hono<HonoTypes>, storesOf: StoresOf, deps: RunnerDeps): void {
  v3ApprovePaymentInitiationRoute(app, storesOf, deps);
  v3RejectPaymentInitiationRoute(app, storesOf);
  v3RetryPaymentInitiationRoute(app, storesOf, deps);
  v3ReversePaymentInitiationRoute(app, storesOf, deps);
}

function v3ApprovePaymentInitiationRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    '/v3/payment-initiations/:paymentInitiationID/approve',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ApprovePaymentInitiation',
        summary: 'Approve a payment initiation',
        description:
          'Only while it waits for validation. It is sent through its connector now (or scheduled for its `scheduledAt`); the task tells how it went.',
        tags: ['payment-initiations'],
        responses: { 202: { description: 'The sending task.', schema: taskIdData } },
      },
    ),
    async (c) => {
      const task = await approveInitiation(storesOf(c), c.req.param('paymentInitiationID'), deps);
      return jsonResponse(c, { data: { taskID: task.id } }, 202);
    },
  );
}

function v3RejectPaymentInitiationRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.post(
    '/v3/payment-initiations/:paymentInitiationID/reject',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3RejectPaymentInitiation',
        summary: 'Reject a payment initiation',
        description: 'Only while it waits for validation.',
        tags: ['payment-initiations'],
        responses: { 204: { description: 'Rejected.' } },
      },
    ),
    async (c) => {
      await rejectInitiation(storesOf(c), c.req.param('paymentInitiationID'));
      return c.body(null, 204);
    },
  );
}

function v3RetryPaymentInitiationRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    '/v3/payment-initiations/:paymentInitiationID/retry',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3RetryPaymentInitiation',
        summary: 'Retry a failed payment initiation',
        tags: ['payment-initiations'],
        responses: { 202: { description: 'The sending task.', schema: taskIdData } },
      },
    ),
    async (c) => {
      const task = await retryInitiation(storesOf(c), c.req.param('paymentInitiationID'), deps);
      return jsonResponse(c, { data: { taskID: task.id } }, 202);
    },
  );
}

function v3ReversePaymentInitiationRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
  deps: RunnerDeps,
): void {
  app.post(
    '/v3/payment-initiations/:paymentInitiationID/reverse',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ReversePaymentInitiation',
        summary: 'Reverse (part of) a processed payment initiation',
        description:
          "In the initiation's asset, never more than is left to reverse, one reversal at a time.",
        tags: ['payment-initiations'],
        body: reversalInputSchema,
        responses: { 202: { description: 'The reversal and its task.', schema: reversalCreated } },
      },
    ),
    async (c) => {
      const body = await readJsonBody(c, reversalInputSchema);
      const { reversal, task } = await reverseInitiation(
        storesOf(c),
        c.req.param('paymentInitiationID'),
        { ...body, metadata: body.metadata ?? {} },
        deps,
      );
      return jsonResponse(
        c,
        { data: { paymentInitiationReversalID: reversal.id, taskID: task.id } },
        202,
      );
    },
  );
}

function historyRoutes(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  v3ListPaymentInitiationAdjustmentsRoute(app, storesOf);
  v3ListPaymentInitiationRelatedPaymentsRoute(app, storesOf);
}

function v3ListPaymentInitiationAdjustmentsRoute(app: Hono<HonoTypes>, storesOf: StoresOf): void {
  app.get(
    '/v3/payment-initiations/:paymentInitiationID/adjustments',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListPaymentInitiationAdjustments',
        summary: "A payment initiation's adjustments",
        description: 'Its history, newest first.',
        tags: ['payment-initiations'],
        parameters: PAGE_PARAMETERS,
        responses: {
          200: { description: 'A page of adjustments.', schema: initiationAdjustmentPage },
        },
      },
    ),
    async (c) => {
      const pi = await requireInitiation(storesOf(c), c.req.param('paymentInitiationID'));
      const page = arrayPage(
        pi.adjustments.map(adjustmentView),
        readListQuery(c.req.query(), ADJUSTMENTS_LIST),
        ADJUSTMENTS_LIST,
        pi.id,
      );
      return jsonResponse(c, { cursor: page });
    },
  );
}

function v3ListPaymentInitiationRelatedPaymentsRoute(
  app: Hono<HonoTypes>,
  storesOf: StoresOf,
): void {
  app.get(
    '/v3/payment-initiations/:paymentInitiationID/payments',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'v3ListPaymentInitiationRelatedPayments',
        summary: "A payment initiation's related payments",
        description:
          'The payments its sending and reversals produced at the provider, oldest first.',
        tags: ['payment-initiations'],
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of payments.', schema: paymentPage } },
      },
    ),
    async (c) => {
      const stores = storesOf(c);
      const pi = await requireInitiation(stores, c.req.param('paymentInitiationID'));
      const page = arrayPage(
        pi.relatedPayments,
        readListQuery(c.req.query(), RELATED_LIST),
        RELATED_LIST,
        pi.id,
      );
      const payments = await Promise.all(page.data.map((r) => stores.payments.get(r.paymentID)));
      return jsonResponse(c, {
        cursor: { ...page, data: payments.filter((p) => p !== undefined) },
      });
    },
  );
}
