import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { action, type Cli, type Run } from '../kit.js';

interface Config {
  id: string;
  name?: string;
  endpoint: string;
  eventTypes: string[];
  secret: string;
  active: boolean;
  createdAt: string;
}

const COLUMNS = [
  { header: 'id', value: (c: Config) => c.id },
  { header: 'name', value: (c: Config) => c.name ?? '' },
  { header: 'endpoint', value: (c: Config) => c.endpoint },
  { header: 'events', value: (c: Config) => c.eventTypes.join(',') },
  { header: 'active', value: (c: Config) => (c.active ? 'yes' : 'no') },
];

/** A config id as the API issues them (a UUID): anything else is a usage error, not a 404. */
function configId(raw: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(raw))
    throw new UsageError(`"${raw}" is not a webhook config id`);
  return raw;
}

/** One config: --json its whole answer (the secret included: it is the receiver's key), else its row. */
function printConfig(run: Run<unknown>, config: Config): void {
  if (run.json) run.printJson(config);
  else run.table(COLUMNS, [config], '');
}

/** `PUT /configs/<id>/<verb>`, the answer printed: activate, deactivate, and secret rotation. */
function registerConfigChange(
  configs: Command,
  cli: Cli,
  verb: 'activate' | 'deactivate',
  description: string,
): void {
  configs
    .command(verb)
    .description(description)
    .argument('<id>', 'config id')
    .action(
      action(cli, async (run, rawId) => {
        const client = await run.client();
        const { data } = await client.json<{ data: Config }>(
          'PUT',
          `/api/webhooks/configs/${configId(rawId!)}/${verb}`,
        );
        printConfig(run, data);
        return 0;
      }),
    );
}

/**
 * `platform webhooks configs list|create|activate|deactivate|rotate` (docs/api.md §4): the webhook configs of the
 * environment the credentials belong to.
 */
export function registerWebhookConfigs(webhooks: Command, cli: Cli): void {
  const configs = webhooks.command('configs').description('webhook configs: where events are sent');
  configs
    .command('list', { isDefault: true })
    .description('list webhook configs')
    .action(
      action(cli, async (run) => {
        const client = await run.client();
        await run.printList(client.list<Config>('/api/webhooks/configs'), COLUMNS, 'no configs');
        return 0;
      }),
    );
  configs
    .command('create')
    .description('create a webhook config (active; its secret printed with --json)')
    .argument('<endpoint>', 'the receiver URL')
    .requiredOption('--event <type...>', 'event types to send (ledger.committed_transactions, …)')
    .option('--name <name>', 'a name to recognise it by')
    .option(
      '--secret <secret>',
      'the signing secret (base64, optionally after whsec_); default: generated',
    )
    .action(
      action<{ event: string[]; name?: string; secret?: string }>(cli, async (run, endpoint) => {
        const { event, name, secret } = run.opts;
        const client = await run.client();
        const { data } = await client.json<{ data: Config }>('POST', '/api/webhooks/configs', {
          body: {
            endpoint,
            eventTypes: event,
            ...(name !== undefined ? { name } : {}),
            ...(secret !== undefined ? { secret } : {}),
          },
        });
        printConfig(run, data);
        return 0;
      }),
    );
  registerConfigChange(configs, cli, 'activate', 'send events to a config again');
  registerConfigChange(configs, cli, 'deactivate', 'stop sending events to a config');
  configs
    .command('rotate')
    .description("change a config's secret; the old one keeps verifying for the overlap window")
    .argument('<id>', 'config id')
    .option('--secret <secret>', 'the new secret; default: generated')
    .action(
      action<{ secret?: string }>(cli, async (run, rawId) => {
        const client = await run.client();
        const { data } = await client.json<{ data: Config }>(
          'PUT',
          `/api/webhooks/configs/${configId(rawId!)}/secret/change`,
          { body: run.opts.secret !== undefined ? { secret: run.opts.secret } : {} },
        );
        printConfig(run, data);
        return 0;
      }),
    );
}
