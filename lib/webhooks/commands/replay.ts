import { ConflictError, DependencyThrottledError } from '../../errors/index.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import type { Delivery } from '../domain/delivery.js';
import { deliveryView } from '../domain/delivery-views.js';
import type { ConfigStore } from '../store/config-store.js';
import type { DeliveryQueue } from '../store/delivery-queue.js';
import type { DeliveryStore } from '../store/delivery-store.js';
import type { ReplayRequests } from '../store/replay-requests.js';
import {
  type ReplayDeliveriesBody,
  type ReplayDeliveriesResult,
  replayDeliveries,
} from './bulk-replay.js';

/** The stores of one environment: a replay reads, writes and queues only there. */
export interface DeliveryReplaysDeps {
  deliveries: DeliveryStore;
  /** Whether a delivery's config is still there and active (bulk replay skips the others). */
  configs: Pick<ConfigStore, 'get'>;
  /** The deliveries queue; without it (a misconfigured function) replays answer 503. */
  queue: DeliveryQueue | undefined;
  /** Answers of replays sent with an Idempotency-Key. */
  requests: ReplayRequests;
  now: () => number;
}

/**
 * Replays (docs/api.md §4): one more attempt now for a finished delivery, alone or over a window of them (bulk). A
 * replay is a conditional write of the delivery (its status is the one read) followed by a queue message, so a
 * repeated or concurrent replay never makes two attempts of one; with an `Idempotency-Key` a repeat gets the
 * first answer (`store/replay-requests.ts`).
 */
export class DeliveryReplays {
  constructor(private readonly deps: DeliveryReplaysDeps) {}

  /** The deliveries queue, or a 503 when the function has none: nothing can be replayed then. */
  requireQueue(): DeliveryQueue {
    if (!this.deps.queue) throw new DependencyThrottledError('deliveries queue not configured');
    return this.deps.queue;
  }

  /**
   * POST /deliveries/<id>/replay: one more attempt now, for a delivery that has finished (typically `failed` after
   * the last retry); the delivery as it is then. 409 while it is still pending (its next attempt is scheduled).
   */
  async replayOne(delivery: Delivery, idempotencyKey: string | undefined) {
    this.requireQueue();
    return this.deps.requests.once(idempotencyKey, 'delivery', delivery.id, async () => {
      await this.requireActiveConfig(delivery);
      if (!(await this.reopen(delivery)))
        throw new ConflictError(
          `delivery ${delivery.id} is still pending: its next attempt is already scheduled`,
        );
      return deliveryView((await this.deps.deliveries.get(delivery.id))!, { withPayload: true });
    });
  }

  /**
   * POST /deliveries/replay (the SDK's replayDeliveries): the failed deliveries of a window replayed, the pending
   * ones expedited, a page at a time (`bulk-replay.ts`).
   */
  async replayWindow(
    body: ReplayDeliveriesBody,
    idempotencyKey: string | undefined,
  ): Promise<ReplayDeliveriesResult> {
    const queue = this.requireQueue();
    const { deliveries, configs, now } = this.deps;
    return this.deps.requests.once(idempotencyKey, 'deliveries', body, () =>
      replayDeliveries(body, {
        deliveries,
        now,
        configActive: async (configId) => (await configs.get(configId))?.active === true,
        replay: (delivery) => this.reopen(delivery),
        expedite: async (delivery) => {
          const nowMs = now();
          if (!(await deliveries.expedite(delivery, nowMs, stamp(nowMs)))) return false;
          // The delivery's own (delayed) message stays queued: whichever arrives first claims the attempt, the
          // other finds it claimed or not due (deliver-batch.ts), so nothing is sent twice.
          await queue.send(deliveries.environment, delivery.id);
          return true;
        },
      }),
    );
  }

  /**
   * 409 when the delivery's config is gone or inactive: the attempt would be cancelled unsent (deliver-batch.ts),
   * so the replay is refused at once, the delivery left as it was, rather than answered `pending` and dropped.
   */
  private async requireActiveConfig(delivery: Delivery): Promise<void> {
    const config = await this.deps.configs.get(delivery.configId);
    if (!config)
      throw new ConflictError(
        `delivery ${delivery.id} cannot be replayed: its config ${delivery.configId} was deleted`,
      );
    if (!config.active)
      throw new ConflictError(
        `delivery ${delivery.id} cannot be replayed: its config ${delivery.configId} is inactive (activate it first)`,
      );
  }

  /** Reopens a finished delivery for one more attempt now, and queues it; false when it changed meanwhile. */
  private async reopen(delivery: Delivery): Promise<boolean> {
    const nowMs = this.deps.now();
    if (!(await this.deps.deliveries.reopen(delivery, nowMs, stamp(nowMs)))) return false;
    await this.requireQueue().send(this.deps.deliveries.environment, delivery.id);
    return true;
  }
}

const stamp = (ms: number): string => formatInstant(instantFromMs(ms));
