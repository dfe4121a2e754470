import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, Hono } from 'hono';
import { ConflictError, DependencyThrottledError, NotFoundError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import type { AppEnv } from '../../http/types.js';
import { DATE_TIME, describe, header, PAGE_PARAMETERS, query } from '../../openapi/describe.js';
import { readListQuery } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { replayDeliveries, replayDeliveriesSchema } from '../deliveries/bulk-replay.js';
import { DELIVERY_FILTERS, readDeliveryFilter } from '../deliveries/list-filter.js';
import { type Delivery, encodeDeliveryMessage } from '../deliveries/model.js';
import type { ReplayRequests } from '../deliveries/replay-requests.js';
import { DELIVERIES_LIST, type DeliveryStore } from '../deliveries/store.js';
import { attemptView, deliveryView } from '../deliveries/views.js';
import type { ConfigStore } from '../store/config-store.js';
import { attemptPage, deliveryData, deliveryPage, replayResultSchema } from './schemas.js';

const DELIVERY_ID = /^[0-9a-f]{32}$/;

export interface DeliveryRoutesDeps {
  deliveries: DeliveryStore;
  sqs: SQSClient;
  /** The deliveries queue; without it (a misconfigured function) replays answer 503. */
  queueUrl: string | undefined;
  /** Whether a delivery's config is still there and active (bulk replay skips the others). */
  configs: Pick<ConfigStore, 'get'>;
  /** Answers of replays sent with an Idempotency-Key. */
  replays: ReplayRequests;
  now: () => number;
}

/** Deliveries (API.md §4): list (filters `configId`, `status`, `createdAtFrom`, `createdAtTo`), get, attempts, replay one, replay in bulk. */
export function deliveryRoutes(
  app: Hono<AppEnv>,
  { deliveries, sqs, queueUrl, configs, replays, now }: DeliveryRoutesDeps,
): void {
  const find = async (raw: string): Promise<Delivery> => {
    const found = DELIVERY_ID.test(raw) ? await deliveries.get(raw) : undefined;
    if (!found) throw new NotFoundError(`delivery ${raw.slice(0, 64)} not found`);
    return found;
  };

  app.get(
    '/deliveries',
    describe({
      operationId: 'getDeliveries',
      summary: 'List deliveries',
      tags: ['webhooks: deliveries'],
      parameters: [
        ...PAGE_PARAMETERS,
        query('configId', 'Only deliveries of this config.'),
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
    const page = await deliveries.list(query, filter);
    return c.json({ cursor: { ...page, data: page.data.map((d) => deliveryView(d)) } });
  });

  app.get(
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
    c.json({ data: deliveryView(await find(c.req.param('id')), { withPayload: true }) }),
  );

  app.get(
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
    const delivery = await find(c.req.param('id'));
    const page = await deliveries.attempts(
      delivery.id,
      readListQuery(c.req.query(), `webhooks.attempts.${delivery.id}`),
    );
    return c.json({ cursor: { ...page, data: page.data.map(attemptView) } });
  });

  const send = async (id: string) => {
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: encodeDeliveryMessage(id) }),
    );
  };
  const stamp = (ms: number) => formatInstant(instantFromMs(ms));
  /** Reopens a finished delivery for one more attempt now, and queues it. */
  const replayOne = async (delivery: Delivery): Promise<boolean> => {
    const nowMs = now();
    if (!(await deliveries.reopen(delivery, nowMs, stamp(nowMs)))) return false;
    await send(delivery.id);
    return true;
  };
  const requireQueue = () => {
    if (!queueUrl) throw new DependencyThrottledError('deliveries queue not configured');
  };
  const idempotencyKey = (c: Context<AppEnv>) => c.req.header('idempotency-key');

  // Bulk (the SDK's replayDeliveries): failed deliveries of a window replayed, pending ones expedited, by pages.
  app.post(
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
    requireQueue();
    const body = await readJsonBody(c, replayDeliveriesSchema);
    const result = await replays.once(idempotencyKey(c), 'deliveries', body, () =>
      replayDeliveries(body, {
        deliveries,
        now,
        configActive: async (configId) => (await configs.get(configId))?.active === true,
        replay: replayOne,
        expedite: async (delivery) => {
          const nowMs = now();
          if (!(await deliveries.expedite(delivery, nowMs, stamp(nowMs)))) return false;
          // The delivery's own (delayed) message stays queued: whichever arrives first claims the attempt, the
          // other finds it claimed or not due (deliver-batch.ts), so nothing is sent twice.
          await send(delivery.id);
          return true;
        },
      }),
    );
    return c.json({ data: result });
  });

  // One more attempt now, for a delivery that has finished (typically `failed` after the last retry).
  app.post(
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
    const delivery = await find(c.req.param('id'));
    requireQueue();
    const data = await replays.once(idempotencyKey(c), 'delivery', delivery.id, async () => {
      if (!(await replayOne(delivery)))
        throw new ConflictError(
          `delivery ${delivery.id} is still pending: its next attempt is already scheduled`,
        );
      return deliveryView((await deliveries.get(delivery.id))!, { withPayload: true });
    });
    return c.json({ data });
  });
}
