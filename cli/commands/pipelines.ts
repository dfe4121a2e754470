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
 * `platform pipelines list|create|start|stop|reset|delete <ledger> …`: a ledger's log streamed to where its users
 * analyse it, through an exporter (`platform exporters`, exporters.ts; docs/api.md, exporters and pipelines).
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
  pipelines
    .command('create')
    .description(
      "create a pipeline: the ledger's log sent through an exporter, from its first entry",
    )
    .argument('<ledger>', 'ledger name')
    .argument('<exporter>', 'exporter id (platform exporters list)')
    .action(
      action(cli, async (run, rawLedger, exporterID) => {
        const client = await run.client();
        const { data } = await client.json<{ data: Pipeline }>(
          'POST',
          `/api/ledger/v2/${ledgerName(rawLedger!)}/pipelines`,
          { body: { exporterID } },
        );
        if (run.json) run.printJson(data);
        else run.line(`created pipeline ${data.id} (running)`);
        return 0;
      }),
    );
  pipelines
    .command('delete')
    .description('delete a pipeline (what it exported stays where it is)')
    .argument('<ledger>', 'ledger name')
    .argument('<id>', 'pipeline id')
    .action(
      action(cli, async (run, rawLedger, id) => {
        const client = await run.client();
        await client.json(
          'DELETE',
          `/api/ledger/v2/${ledgerName(rawLedger!)}/pipelines/${encodeURIComponent(id!)}`,
        );
        if (!run.json) run.line(`deleted pipeline ${id}`);
        return 0;
      }),
    );
}
