import type { EnvironmentClients } from '../dynamo/environment-clients.js';
import { DeliveryReplays } from './commands/replay.js';
import { ConfigStore } from './store/config-store.js';
import type { DeliveryQueue } from './store/delivery-queue.js';
import { DeliveryStore } from './store/delivery-store.js';
import { ReplayRequests } from './store/replay-requests.js';

/** The webhooks service's stores and replays of one environment: everything a route reads or writes. */
export interface WebhooksOfEnvironment {
  configs: ConfigStore;
  deliveries: DeliveryStore;
  replays: DeliveryReplays;
}

/** Builds them for the environment a request's token names (`environmentOf(c)`); cheap, so built per request. */
export type WebhooksScope = (environment: string) => WebhooksOfEnvironment;

export interface WebhooksScopeOptions {
  /** Each environment's client (lib/dynamo/environment-clients.ts): the stores of one are built over its own. */
  clients: EnvironmentClients;
  table: string;
  /** The deliveries queue; without it (a misconfigured function) replays answer 503. */
  queue: DeliveryQueue | undefined;
  now: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export function webhooksScope(options: WebhooksScopeOptions): WebhooksScope {
  const { clients, table, queue, now, sleep } = options;
  return (environment) => {
    const doc = clients.forEnvironment(environment);
    const configs = new ConfigStore({ doc, table, environment, now, ...(sleep ? { sleep } : {}) });
    const deliveries = new DeliveryStore({ doc, table, environment });
    const replays = new DeliveryReplays({
      deliveries,
      configs,
      queue,
      requests: new ReplayRequests({ doc, table, environment, now }),
      now,
    });
    return { configs, deliveries, replays };
  };
}
