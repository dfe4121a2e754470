import type { Context, Hono } from 'hono';
import { NotFoundError } from '../../errors/index.js';
import { environmentOf } from '../../http/environment.js';
import { readJsonBody } from '../../http/json-body.js';
import type { HonoTypes } from '../../http/types.js';
import { DATE_TIME, describe, header, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { replayDeliveriesSchema } from '../commands/bulk-replay.js';
import { type Delivery, isDeliveryId } from '../domain/delivery.js';
import { DELIVERY_FILTERS, readDeliveryFilter } from '../domain/delivery-filter.js';
import { attemptView, deliveryView } from '../domain/delivery-views.js';
import type { WebhooksScope } from '../environment-stores.js';
import { DELIVERIES_LIST, type DeliveryStore } from '../store/delivery-store.js';
import { attemptPage, deliveryData, deliveryPage, replayResultSchema } from './schemas.js';

export interface DeliveryRoutesDeps {
  /** An environment's deliveries and replays, one or in bulk (`commands/replay.ts`). */
  scope: WebhooksScope;
}

/**
 * Deliveries (docs/api.md §4): list (filters `configId` or `configID`, `status`, `createdAtFrom`, `createdAtTo`), get, attempts,
 * replay one, replay in bulk; each in the token's environment, where another environment's delivery is as unknown
 * as one never made.
 */
export function deliveryRoutes(app: Hono<HonoTypes>, { scope }: DeliveryRoutesDeps): void {
  const of = (c: Context<HonoTypes>) => scope(environmentOf(c));
  const find = async (deliveries: DeliveryStore, raw: string): Promise<Delivery> => {
    const found = isDeliveryId(raw) ? await deliveries.get(raw) : undefined;
    if (!found) throw new NotFoundError(`delivery ${raw.slice(0, 64)} not found`);
    return found;
  };
  const idempotencyKey = (c: Context<HonoTypes>) => c.req.header('idempotency-key');

  openapi: app.get(
    '/deliveries',
    describe({
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
    }),
  );
  app.get('/deliveries', async (c) => {
    const query = readListQuery(c.req.query(), DELIVERIES_LIST, DELIVERY_FILTERS);
    // A cursor carries the listing's filters; without one they come from the query string.
    const filter = readDeliveryFilter(query.cursor ? (query.cursor.f ?? {}) : c.req.query());
    const page = await of(c).deliveries.list(query, filter);
    return c.json({ cursor: { ...page, data: page.data.map((d) => deliveryView(d)) } });
  });

  openapi: app.get(
    '/deliveries/:id',
    describe({
      operationId: 'getDelivery',
      summary: 'Get a delivery',
      description: 'With the exact body POSTed (`payload`).',
      tags: ['webhooks: deliveries'],
      responses: { 200: { description: 'The delivery.', schema: deliveryData } },
    }),
  );
  app.get('/deliveries/:id', async (c) =>
    c.json({
      data: deliveryView(await find(of(c).deliveries, c.req.param('id')), { withPayload: true }),
    }),
  );

  openapi: app.get(
    '/deliveries/:id/attempts',
    describe({
      operationId: 'getDeliveryAttempts',
      summary: "List a delivery's attempts",
      tags: ['webhooks: deliveries'],
      parameters: PAGE_PARAMETERS,
      responses: { 200: { description: 'A page of attempts.', schema: attemptPage } },
    }),
  );
  app.get('/deliveries/:id/attempts', async (c) => {
    const { deliveries } = of(c);
    const delivery = await find(deliveries, c.req.param('id'));
    const page = await deliveries.attempts(
      delivery.id,
      readListQuery(c.req.query(), `webhooks.attempts.${delivery.id}`),
    );
    return c.json({ cursor: { ...page, data: page.data.map(attemptView) } });
  });

  // Bulk (the SDK's replayDeliveries): failed deliveries of a window replayed, pending ones expedited, by pages.
  openapi: app.post(
    '/deliveries/replay',
    describe({
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
    }),
  );
  app.post('/deliveries/replay', async (c) => {
    const { replays } = of(c);
    // Before the body: a function without its queue answers 503 whatever it is sent.
    replays.requireQueue();
    const body = await readJsonBody(c, replayDeliveriesSchema);
    return c.json({ data: await replays.replayWindow(body, idempotencyKey(c)) });
  });

  // One more attempt now, for a delivery that has finished (typically `failed` after the last retry).
  openapi: app.post(
    '/deliveries/:id/replay',
    describe({
      operationId: 'replayDelivery',
      summary: 'Replay a delivery',
      description:
        'One more attempt now, for a delivery that has finished; 409 while it is still pending.',
      tags: ['webhooks: deliveries'],
      parameters: [
        header('Idempotency-Key', 'A retry with the same key answers the first result.'),
      ],
      responses: { 200: { description: 'The delivery, reopened.', schema: deliveryData } },
    }),
  );
  app.post('/deliveries/:id/replay', async (c) => {
    const { deliveries, replays } = of(c);
    const delivery = await find(deliveries, c.req.param('id'));
    return c.json({ data: await replays.replayOne(delivery, idempotencyKey(c)) });
  });
}
