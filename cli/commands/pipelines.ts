import type { Command } from 'commander';
import { ledgerName } from '../args.js';
import { action, type Cli } from '../kit.js';

/** A pipeline as GET /v2/<ledger>/pipelines answers it. */
interface Pipeline {
  id: string;
  exporterID: string;
  createdAt: string;
  enabled: boolean;
  lastLogID?: bigint | number;
  error?: string;
}

/** An exporter as GET /v2/_/exporters answers it (its config's secrets are never in the answer). */
interface Exporter {
  id: string;
  driver: string;
  createdAt: string;
}

const PIPELINE_COLUMNS = [
  { header: 'id', value: (p: Pipeline) => p.id },
  {
    header: 'state',
    value: (p: Pipeline) =>
      !p.enabled ? 'stopped' : p.error === undefined ? 'running' : `failing: ${p.error}`,
  },
  {
    header: 'exported',
    value: (p: Pipeline) => (p.lastLogID === undefined ? '-' : `#${p.lastLogID}`),
  },
  { header: 'exporter', value: (p: Pipeline) => p.exporterID },
  { header: 'created', value: (p: Pipeline) => p.createdAt },
];

const EXPORTER_COLUMNS = [
  { header: 'id', value: (e: Exporter) => e.id },
  { header: 'driver', value: (e: Exporter) => e.driver },
  { header: 'created', value: (e: Exporter) => e.createdAt },
];

/** What each pipeline verb asks of the API, and what it says when done. */
const ACTIONS = [
  [
    'start',
    'start a stopped pipeline (it resumes after the last log entry it exported)',
    'started',
  ],
  ['stop', 'stop a pipeline (the worker sees it before its next batch)', 'stopped'],
  ['reset', 'export the whole log again, from its first entry', 'reset'],
] as const;

/**
 * `platform pipelines list|start|stop|reset <ledger> [id]` and `platform exporters list`: a ledger's log streamed
 * to where its users analyse it (docs/api.md, exporters and pipelines). Exporters are created with the API, their
 * configuration holding the target's credentials.
 */
export function registerPipelines(program: Command, cli: Cli): void {
  const pipelines = program
    .command('pipelines')
    .description("a ledger's pipelines: its log sent through an exporter");
  pipelines
    .command('list', { isDefault: true })
    .description("list a ledger's pipelines: state and the last log entry exported")
    .argument('<ledger>', 'ledger name')
    .action(
      action(cli, async (run, rawLedger) => {
        const client = await run.client();
        const path = `/api/ledger/v2/${ledgerName(rawLedger!)}/pipelines`;
        await run.printList(client.list<Pipeline>(path), PIPELINE_COLUMNS, 'no pipelines');
        return 0;
      }),
    );
  for (const [verb, description, done] of ACTIONS) {
    pipelines
      .command(verb)
      .description(description)
      .argument('<ledger>', 'ledger name')
      .argument('<id>', 'pipeline id')
      .action(
        action(cli, async (run, rawLedger, id) => {
          const client = await run.client();
          const path = `/api/ledger/v2/${ledgerName(rawLedger!)}/pipelines/${encodeURIComponent(id!)}`;
          await client.json('POST', `${path}/${verb}`);
          if (run.json) run.printJson((await client.json<{ data: Pipeline }>('GET', path)).data);
          else run.line(`${done} pipeline ${id}`);
          return 0;
        }),
      );
  }
  program
    .command('exporters')
    .description('exporters: where pipelines send logs')
    .command('list', { isDefault: true })
    .description('list the exporters (drivers; configurations stay in the API)')
    .action(
      action(cli, async (run) => {
        const client = await run.client();
        await run.printList(
          client.list<Exporter>('/api/ledger/v2/_/exporters'),
          EXPORTER_COLUMNS,
          'no exporters',
        );
        return 0;
      }),
    );
}
