import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, Hono } from 'hono';
import { ConflictError, DependencyThrottledError, NotFoundError } from '../../errors/index.js';
import { readJsonBody } from '../../http/json-body.js';
import type { AppEnv } from '../../http/types.js';
import { readListQuery } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { replayDeliveries, replayDeliveriesSchema } from '../commands/bulk-replay.js';
import { type Delivery, encodeDeliveryMessage } from '../domain/delivery.js';
import { DELIVERY_FILTERS, readDeliveryFilter } from '../domain/delivery-filter.js';
import { attemptView, deliveryView } from '../domain/delivery-views.js';
import type { ConfigStore } from '../store/config-store.js';
import { DELIVERIES_LIST, type DeliveryStore } from '../store/delivery-store.js';
import type { ReplayRequests } from '../store/replay-requests.js';

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

  app.get('/deliveries', async (c) => {
    const query = readListQuery(c.req.query(), DELIVERIES_LIST, DELIVERY_FILTERS);
    // A cursor carries the listing's filters; without one they come from the query string.
    const filter = readDeliveryFilter(query.cursor ? (query.cursor.f ?? {}) : c.req.query());
    const page = await deliveries.list(query, filter);
    return c.json({ cursor: { ...page, data: page.data.map((d) => deliveryView(d)) } });
  });

  app.get('/deliveries/:id', async (c) =>
    c.json({ data: deliveryView(await find(c.req.param('id')), { withPayload: true }) }),
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
