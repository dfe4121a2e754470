import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Hono } from 'hono';
import { ConflictError, DependencyThrottledError, NotFoundError } from '../../errors/index.js';
import type { AppEnv } from '../../http/types.js';
import { readListQuery } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import { encodeDeliveryMessage, type Delivery } from '../deliveries/model.js';
import { readDeliveryFilter, DELIVERY_FILTERS } from '../deliveries/list-filter.js';
import { DELIVERIES_LIST, type DeliveryStore } from '../deliveries/store.js';

const DELIVERY_ID = /^[0-9a-f]{32}$/;

/** The API view: the record without its body (the event, which can be large, is what was POSTed). */
export const deliveryView = (d: Delivery) => ({
  id: d.id,
  configId: d.configId,
  eventId: d.eventId,
  eventType: d.eventType,
  status: d.status,
  attempts: d.attempts,
  ...(d.status === 'pending' && d.nextAttemptAt !== undefined ? { nextAttemptAt: formatInstant(instantFromMs(d.nextAttemptAt)) } : {}),
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

export interface DeliveryRoutesDeps {
  deliveries: DeliveryStore;
  sqs: SQSClient;
  /** The deliveries queue; without it (a misconfigured function) replays answer 503. */
  queueUrl: string | undefined;
  now: () => number;
}

/** Deliveries (API.md §4): list (filters `configId`, `status`, `createdAtFrom`, `createdAtTo`), get, attempts, replay. */
export function deliveryRoutes(app: Hono<AppEnv>, { deliveries, sqs, queueUrl, now }: DeliveryRoutesDeps): void {
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
    return c.json({ cursor: { ...page, data: page.data.map(deliveryView) } });
  });

  app.get('/deliveries/:id', async (c) => c.json({ data: deliveryView(await find(c.req.param('id'))) }));

  app.get('/deliveries/:id/attempts', async (c) => {
    const delivery = await find(c.req.param('id'));
    return c.json({ cursor: await deliveries.attempts(delivery.id, readListQuery(c.req.query(), `webhooks.attempts.${delivery.id}`)) });
  });

  // One more attempt now, for a delivery that has finished (typically `failed` after the last retry).
  app.post('/deliveries/:id/replay', async (c) => {
    const delivery = await find(c.req.param('id'));
    if (!queueUrl) throw new DependencyThrottledError('deliveries queue not configured');
    const nowMs = now();
    if (!(await deliveries.reopen(delivery, nowMs, formatInstant(instantFromMs(nowMs))))) {
      throw new ConflictError(`delivery ${delivery.id} is still pending: its next attempt is already scheduled`);
    }
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: encodeDeliveryMessage(delivery.id) }));
    return c.json({ data: deliveryView((await deliveries.get(delivery.id))!) });
  });
}
