import type { Command } from 'commander';
import { limitArg } from '../args.js';
import { UsageError } from '../errors.js';
import { action, type Cli, type Run } from '../kit.js';

interface Delivery {
  id: string;
  configID: string;
  eventType: string;
  status: string;
  attemptCount: number;
  lastStatusCode?: number;
  nextAttemptAt?: string;
  createdAt: string;
}

interface ReplayResult {
  replayed: number;
  expedited: number;
  skipped: number;
  hasMore: boolean;
  nextCursor?: string;
}

const COLUMNS = [
  { header: 'id', value: (d: Delivery) => d.id },
  { header: 'event', value: (d: Delivery) => d.eventType },
  { header: 'status', value: (d: Delivery) => d.status },
  { header: 'attempts', value: (d: Delivery) => String(d.attemptCount) },
  { header: 'last', value: (d: Delivery) => (d.lastStatusCode ?? '').toString() },
  { header: 'created', value: (d: Delivery) => d.createdAt },
];

const STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'];

/** An RFC 3339 instant, checked before any request. */
function instant(flag: string, raw: string | undefined): string | undefined {
  if (raw !== undefined && Number.isNaN(Date.parse(raw)))
    throw new UsageError(`${flag}: "${raw}" is not an RFC 3339 instant`);
  return raw;
}

function status(raw: string | undefined, allowed = STATUSES): string | undefined {
  if (raw !== undefined && !allowed.includes(raw))
    throw new UsageError(`--status: one of ${allowed.join(', ')}`);
  return raw;
}

function printDelivery(run: Run<unknown>, delivery: Delivery): void {
  if (run.json) run.printJson(delivery);
  else run.table(COLUMNS, [delivery], '');
}

/**
 * `platform webhooks deliveries list|show|replay` (docs/api.md §4): a config's deliveries, one with its payload
 * (--json), and replays — of one delivery, or of every one a filter selects (`--status failed --since …`).
 */
export function registerWebhookDeliveries(webhooks: Command, cli: Cli): void {
  const deliveries = webhooks.command('deliveries').description('webhook deliveries');
  deliveries
    .command('list', { isDefault: true })
    .description('list deliveries, newest first')
    .option('--config <id>', "only this config's deliveries")
    .option('--status <status>', STATUSES.join(', '))
    .option('--since <instant>', 'created at or after (RFC 3339)')
    .option('--limit <n>', 'print at most n deliveries (default 100)')
    .action(
      action<{ config?: string; status?: string; since?: string; limit?: string }>(
        cli,
        async (run) => {
          const query = {
            ...(run.opts.config ? { configId: run.opts.config } : {}),
            ...(status(run.opts.status) ? { status: run.opts.status! } : {}),
            ...(instant('--since', run.opts.since) ? { createdAtFrom: run.opts.since! } : {}),
          };
          const limit = limitArg(run.opts.limit);
          const client = await run.client();
          await run.printList(
            client.list<Delivery>('/api/webhooks/deliveries', query, limit),
            COLUMNS,
            'no deliveries',
          );
          return 0;
        },
      ),
    );
  deliveries
    .command('show')
    .description('show one delivery (--json: with the payload sent)')
    .argument('<id>', 'delivery id')
    .action(
      action(cli, async (run, id) => {
        const client = await run.client();
        const path = `/api/webhooks/deliveries/${encodeURIComponent(id!)}`;
        const { data } = await client.json<{ data: Delivery }>('GET', path);
        printDelivery(run, data);
        return 0;
      }),
    );
  registerReplay(deliveries, cli);
}

/** `replay <id>`, or `replay --status failed --since <instant> [--config id]` (the bulk replay). */
function registerReplay(deliveries: Command, cli: Cli): void {
  deliveries
    .command('replay')
    .description('send a delivery again now, or every delivery a filter selects')
    .argument('[id]', 'delivery id (without it: --since, and --status or --config)')
    .option('--status <status>', 'failed or pending')
    .option('--since <instant>', 'created at or after (RFC 3339)')
    .option('--config <id...>', "only these configs' deliveries")
    .action(
      action<{ status?: string; since?: string; config?: string[] }>(cli, async (run, id) => {
        const client = await run.client();
        if (id !== undefined) {
          if (run.opts.status || run.opts.since || run.opts.config)
            throw new UsageError('a delivery id, or filters, not both');
          const path = `/api/webhooks/deliveries/${encodeURIComponent(id)}/replay`;
          const { data } = await client.json<{ data: Delivery }>('POST', path);
          printDelivery(run, data);
          return 0;
        }
        const since = instant('--since', run.opts.since);
        if (since === undefined) throw new UsageError('replay: a delivery id, or --since');
        const statuses = status(run.opts.status, ['failed', 'pending']);
        const { data } = await client.json<{ data: ReplayResult }>(
          'POST',
          '/api/webhooks/deliveries/replay',
          {
            body: {
              createdAtFrom: since,
              ...(statuses ? { statuses: [statuses] } : {}),
              ...(run.opts.config ? { configIds: run.opts.config } : {}),
            },
          },
        );
        if (run.json) run.printJson(data);
        else
          run.line(
            `replayed ${data.replayed}, expedited ${data.expedited}, skipped ${data.skipped}${data.hasMore ? ' (more: run again)' : ''}`,
          );
        return 0;
      }),
    );
}
