import type { Command } from 'commander';
import { action, type Cli } from '../kit.js';

interface EventType {
  name: string;
  app: string;
  description: string;
  schema: Record<string, unknown>;
}

const COLUMNS = [
  { header: 'event', value: (t: EventType) => t.name },
  { header: 'from', value: (t: EventType) => t.app },
  { header: 'when', value: (t: EventType) => t.description },
];

/**
 * `platform webhooks event-types`: the event catalogue (GET /api/webhooks/event-types), a kind per row; `--json`
 * the whole answer, each kind's JSON Schema included.
 */
export function registerWebhookEventTypes(webhooks: Command, cli: Cli): void {
  webhooks
    .command('event-types')
    .description('the event kinds a config may subscribe to (--json: with their JSON Schemas)')
    .action(
      action(cli, async (run) => {
        const client = await run.client();
        const { data } = await client.json<{ data: EventType[] }>(
          'GET',
          '/api/webhooks/event-types',
        );
        if (run.json) run.printJson(data);
        else run.table(COLUMNS, data, 'no event types');
        return 0;
      }),
    );
}
