import type { Context, Hono } from 'hono';
import { NotFoundError } from '../../errors/index.js';
import { environmentOf } from '../../http/environment.js';
import { readJsonBody } from '../../http/json-body.js';
import type { HonoTypes } from '../../http/types.js';
import { DATE_TIME, header, openapi, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { type Delivery, isDeliveryId } from '../domain/delivery.js';
import { DELIVERY_FILTERS, readDeliveryFilter } from '../domain/delivery-filter.js';
import { attemptView, deliveryView } from '../domain/delivery-views.js';
import type { WebhooksScope } from '../environment-stores.js';
import { DELIVERIES_LIST, type DeliveryStore } from '../store/delivery-store.js';
import { replayDeliveriesSchema } from './requests.js';
import { attemptPage, deliveryData, deliveryPage, replayResultSchema } from './schemas.js';

export interface DeliveryRoutesDeps {
  /** An environment's deliveries and replays, one or in bulk (`commands/replay.ts`). */
  scope: WebhooksScope;
}

/** A path's delivery, or 404 (an id that cannot be one is not read). */
async function find(deliveries: DeliveryStore, raw: string): Promise<Delivery> {
  const found = isDeliveryId(raw) ? await deliveries.get(raw) : undefined;
  if (!found) throw new NotFoundError(`delivery ${raw.slice(0, 64)} not found`);
  return found;
}

const idempotencyKey = (c: Context<HonoTypes>) => c.req.header('idempotency-key');

/**
 * Deliveries (docs/api.md §4): list (filters `configId` or `configID`, `status`, `createdAtFrom`, `createdAtTo`), get, attempts,
 * replay one, replay in bulk; each in the token's environment, where another environment's delivery is as unknown
 * as one never made.
 */
export function deliveryRoutes(app: Hono<HonoTypes>, deps: DeliveryRoutesDeps): void {
  getDeliveriesRoute(app, deps);
  getDeliveryRoute(app, deps);
  getDeliveryAttemptsRoute(app, deps);
  replayDeliveriesRoute(app, deps);
  replayDeliveryRoute(app, deps);
}

function getDeliveriesRoute(app: Hono<HonoTypes>, { scope }: DeliveryRoutesDeps): void {
  app.get(
    '/deliveries',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getDeliveries',
        summary: 'List deliveries',
        tags: ['webhooks: deliveries'],
        parameters: [
          ...PAGE_PARAMETERS,
          query('configId', 'Only deliveries of this config.'),
          query('configID', 'The same as `configId` (the name the answers use); send one of them.'),
          query('status', '`pending`, `succeeded`, `failed` or `cancelled`.'),
          query('createdAtFrom', 'Created at or after (RFC 3339).', DATE_TIME),
          query('createdAtTo', 'Created before (RFC 3339).', DATE_TIME),
        ],
        responses: { 200: { description: 'A page of deliveries.', schema: deliveryPage } },
      },
    ),
    async (c) => {
      const query = readListQuery(c.req.query(), DELIVERIES_LIST, DELIVERY_FILTERS);
      // A cursor carries the listing's filters; without one they come from the query string.
      const filter = readDeliveryFilter(query.cursor ? (query.cursor.f ?? {}) : c.req.query());
      const page = await scope(environmentOf(c)).deliveries.list(query, filter);
      return c.json({ cursor: { ...page, data: page.data.map((d) => deliveryView(d)) } });
    },
  );
}

function getDeliveryRoute(app: Hono<HonoTypes>, { scope }: DeliveryRoutesDeps): void {
  app.get(
    '/deliveries/:id',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getDelivery',
        summary: 'Get a delivery',
        description: 'With the exact body POSTed (`payload`).',
        tags: ['webhooks: deliveries'],
        responses: { 200: { description: 'The delivery.', schema: deliveryData } },
      },
    ),
    async (c) =>
      c.json({
        data: deliveryView(await find(scope(environmentOf(c)).deliveries, c.req.param('id')), {
          withPayload: true,
        }),
      }),
  );
}

function getDeliveryAttemptsRoute(app: Hono<HonoTypes>, { scope }: DeliveryRoutesDeps): void {
  app.get(
    '/deliveries/:id/attempts',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'getDeliveryAttempts',
        summary: "List a delivery's attempts",
        tags: ['webhooks: deliveries'],
        parameters: PAGE_PARAMETERS,
        responses: { 200: { description: 'A page of attempts.', schema: attemptPage } },
      },
    ),
    async (c) => {
      const { deliveries } = scope(environmentOf(c));
      const delivery = await find(deliveries, c.req.param('id'));
      const page = await deliveries.attempts(
        delivery.id,
        readListQuery(c.req.query(), `webhooks.attempts.${delivery.id}`),
      );
      return c.json({ cursor: { ...page, data: page.data.map(attemptView) } });
    },
  );
}

function replayDeliveriesRoute(app: Hono<HonoTypes>, { scope }: DeliveryRoutesDeps): void {
  app.post(
    '/deliveries/replay',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'replayDeliveries',
        summary: 'Replay deliveries in bulk',
        description:
          'Failed deliveries of a time window are sent again, pending ones brought forward, a page at a time.',
        tags: ['webhooks: deliveries'],
        parameters: [
          header('Idempotency-Key', 'A retry with the same key answers the first result.'),
        ],
        body: replayDeliveriesSchema,
        responses: { 200: { description: 'What was replayed.', schema: replayResultSchema } },
      },
    ),
    async (c) => {
      const { replays } = scope(environmentOf(c));
      // Before the body: a function without its queue answers 503 whatever it is sent.
      replays.requireQueue();
      const body = await readJsonBody(c, replayDeliveriesSchema);
      return c.json({ data: await replays.replayWindow(body, idempotencyKey(c)) });
    },
  );
}

function replayDeliveryRoute(app: Hono<HonoTypes>, { scope }: DeliveryRoutesDeps): void {
  app.post(
    '/deliveries/:id/replay',
    openapi(
      OPENAPI_SPECS && {
        operationId: 'replayDelivery',
        summary: 'Replay a delivery',
        description:
          'One more attempt now, for a delivery that has finished; 409 while it is still pending.',
        tags: ['webhooks: deliveries'],
        parameters: [
          header('Idempotency-Key', 'A retry with the same key answers the first result.'),
        ],
        responses: { 200: { description: 'The delivery, reopened.', schema: deliveryData } },
      },
    ),
    async (c) => {
      const { deliveries, replays } = scope(environmentOf(c));
      const delivery = await find(deliveries, c.req.param('id'));
      return c.json({ data: await replays.replayOne(delivery, idempotencyKey(c)) });
    },
  );
}
