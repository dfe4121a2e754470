import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import type { PlatformClient } from '../api/client.js';
import { UsageError } from '../errors.js';
import { action, type Cli, type Run } from '../kit.js';
import { registerWebhookConfigs } from './webhook-configs.js';
import { registerWebhookDeliveries } from './webhook-deliveries.js';
import { registerWebhookEventTypes } from './webhook-event-types.js';

interface DeliveryView {
  id: string;
  configID: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  attemptCount: number;
  createdAt: string;
}

interface AttemptView {
  deliveryID: string;
  attemptNumber: number;
  createdAt: string;
  statusCode: number | bigint;
  outcome: string;
  durationMillis: number;
  endpoint: string;
  error?: string;
}

/** What the tail has printed of one delivery. */
interface Followed {
  lastAttempt: number;
  status: DeliveryView['status'];
  createdAtMs: number;
}

/**
 * How far back the listing window reaches behind what is still moving: covers clock skew between this machine and
 * the platform, and deliveries listed late by the index (it is eventually consistent).
 */
const WINDOW_MARGIN_MS = 60_000;
const DEFAULT_INTERVAL_MS = 1000;

/**
 * `platform webhooks tail`: webhook deliveries as they happen, until Ctrl+C. It polls GET /deliveries (created
 * since the window start) and prints each new delivery once, then each of its attempts once (from its attempts
 * list) as they are made. The window starts at `--since`, else at start-up (what exists then is taken as seen, not
 * printed), and moves forward behind the oldest delivery still pending, so a long tail neither lists nor remembers
 * more than the deliveries still moving plus a minute. A replay of a delivery that left the window is not seen.
 */
export function registerWebhooks(program: Command, cli: Cli): void {
  const webhooks = program.command('webhooks').description('webhook configs and deliveries');
  registerWebhookConfigs(webhooks, cli);
  registerWebhookDeliveries(webhooks, cli);
  registerWebhookEventTypes(webhooks, cli);
  webhooks
    .command('tail')
    .description('print webhook deliveries and their attempts as they happen, until Ctrl+C')
    .option('--since <instant>', 'also print deliveries created since then (RFC 3339)')
    .option('--config <id>', "only this webhook config's deliveries")
    .option('--interval <ms>', `time between polls (default ${DEFAULT_INTERVAL_MS})`)
    .action(
      action<{ since?: string; config?: string; interval?: string }>(cli, async (run) => {
        const { since, config, interval } = run.opts;
        const sinceMs = since === undefined ? undefined : Date.parse(since);
        if (sinceMs !== undefined && Number.isNaN(sinceMs))
          throw new UsageError(`--since: "${since}" is not an RFC 3339 date-time`);
        const intervalMs = interval === undefined ? DEFAULT_INTERVAL_MS : Number(interval);
        if (!/^\d+$/.test(interval ?? '0') || intervalMs < 100)
          throw new UsageError('--interval: must be an integer of at least 100 (milliseconds)');
        const client = await run.client();
        const tail = new DeliveryTail(client, run, config);
        let windowStartMs = sinceMs ?? Date.now() - WINDOW_MARGIN_MS;
        windowStartMs = await tail.poll(windowStartMs, sinceMs === undefined);
        // Said once the first look is done: from here on, whatever happens is printed.
        if (!run.json)
          cli.io.stderr.write(
            `following webhook deliveries${since !== undefined ? ` since ${since}` : ''} (Ctrl+C to stop)\n`,
          );
        for (;;) {
          await sleep(intervalMs);
          windowStartMs = await tail.poll(windowStartMs, false);
        }
      }),
    );
}

class DeliveryTail {
  private readonly followed = new Map<string, Followed>();

  constructor(
    private readonly client: PlatformClient,
    private readonly run: Run<unknown>,
    private readonly configId: string | undefined,
  ) {}

  /** One look at the deliveries created since `windowStartMs`; the next window start. */
  async poll(windowStartMs: number, baseline: boolean): Promise<number> {
    const listed: DeliveryView[] = [];
    for await (const d of this.client.list<DeliveryView>('/api/webhooks/deliveries', {
      createdAtFrom: new Date(windowStartMs).toISOString(),
      ...(this.configId !== undefined ? { configId: this.configId } : {}),
    }))
      listed.push(d);
    // The list is newest first; printed oldest first, as they happened.
    for (const delivery of listed.reverse()) await this.follow(delivery, baseline);
    return this.advance(windowStartMs);
  }

  private async follow(d: DeliveryView, baseline: boolean): Promise<void> {
    let seen = this.followed.get(d.id);
    if (!seen) {
      seen = { lastAttempt: baseline ? d.attemptCount : 0, status: d.status, createdAtMs: 0 };
      this.followed.set(d.id, seen);
      if (!baseline) this.print('delivery', d);
    }
    seen.status = d.status;
    seen.createdAtMs = Date.parse(d.createdAt);
    if (d.attemptCount <= seen.lastAttempt) return;
    for await (const a of this.client.list<AttemptView>(
      `/api/webhooks/deliveries/${d.id}/attempts`,
    )) {
      if (a.attemptNumber <= seen.lastAttempt) continue;
      this.print('attempt', a);
      seen.lastAttempt = a.attemptNumber;
    }
  }

  /** Moves the window up behind the oldest pending delivery (else the newest seen), forgetting what fell out. */
  private advance(windowStartMs: number): number {
    let anchorMs: number | undefined;
    let newestMs = Number.NEGATIVE_INFINITY;
    for (const f of this.followed.values()) {
      newestMs = Math.max(newestMs, f.createdAtMs);
      if (f.status === 'pending') anchorMs = Math.min(anchorMs ?? f.createdAtMs, f.createdAtMs);
    }
    anchorMs ??= newestMs;
    if (!Number.isFinite(anchorMs)) return windowStartMs;
    const next = Math.max(windowStartMs, anchorMs - WINDOW_MARGIN_MS);
    for (const [id, f] of this.followed) if (f.createdAtMs < next) this.followed.delete(id);
    return next;
  }

  private print(kind: 'delivery', item: DeliveryView): void;
  private print(kind: 'attempt', item: AttemptView): void;
  private print(kind: 'delivery' | 'attempt', item: DeliveryView | AttemptView): void {
    if (this.run.json) {
      this.run.printJson({ kind, ...item });
      return;
    }
    if (kind === 'delivery') {
      const d = item as DeliveryView;
      this.run.line(`${d.createdAt}  delivery ${d.id}  ${d.eventType}  config ${d.configID}`);
      return;
    }
    const a = item as AttemptView;
    // The client reads integers exactly (as bigints): 0n is no answer, as 0 is.
    const answer = Number(a.statusCode) === 0 ? 'no answer' : `HTTP ${a.statusCode}`;
    this.run.line(
      `${a.createdAt}  attempt  ${a.deliveryID} #${a.attemptNumber}  ${answer} ${a.outcome}  ${a.durationMillis} ms  ${a.endpoint}${a.error ? `  ${a.error}` : ''}`,
    );
  }
}
