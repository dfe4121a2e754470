import type { Command } from 'commander';
import { ASSET } from '../../lib/money/asset.js';
import { ledgerName } from '../args.js';
import { UsageError } from '../errors.js';
import { action, type Cli, type Run } from '../kit.js';

/** A balance monitor as GET /v2/<ledger>/monitors answers it, exact integers. */
interface Monitor {
  id: string;
  account: string;
  asset: string;
  condition: { type: string; amount?: bigint; field?: string };
  metadata: Record<string, string>;
  createdAt: string;
}

const COLUMNS = [
  { header: 'id', value: (m: Monitor) => m.id },
  { header: 'account', value: (m: Monitor) => m.account },
  { header: 'asset', value: (m: Monitor) => m.asset },
  {
    header: 'condition',
    value: (m: Monitor) =>
      `${m.condition.field === 'available' ? 'available ' : ''}${
        m.condition.amount === undefined
          ? m.condition.type
          : `${m.condition.type} ${m.condition.amount}`
      }`,
  },
  { header: 'created', value: (m: Monitor) => m.createdAt },
];

interface CreateOptions {
  account: string;
  asset: string;
  below?: string;
  above?: string;
  negative?: boolean;
  changes?: boolean;
  available?: boolean;
  meta?: string[];
}

const INTEGER = /^-?\d{1,39}$/;

/** The one condition the flags name: exactly one of --below, --above, --negative, --changes. */
function conditionOf(o: CreateOptions): { type: string; amount?: string; field?: string } {
  const given = [
    o.below !== undefined ? { type: 'below', amount: o.below } : undefined,
    o.above !== undefined ? { type: 'above', amount: o.above } : undefined,
    o.negative ? { type: 'negative' } : undefined,
    o.changes ? { type: 'changes' } : undefined,
  ].filter((c) => c !== undefined);
  if (given.length !== 1)
    throw new UsageError('give exactly one of --below <n>, --above <n>, --negative, --changes');
  const [condition] = given as [{ type: string; amount?: string }];
  if (condition.amount !== undefined && !INTEGER.test(condition.amount))
    throw new UsageError(`--${condition.type} "${condition.amount}" is not an integer`);
  return o.available ? { ...condition, field: 'available' } : condition;
}

/** `key=value` pairs of --meta. */
function metadataOf(pairs: readonly string[] = []): Record<string, string> {
  const metadata = new Map<string, string>();
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`--meta "${pair}" is not key=value`);
    metadata.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return Object.fromEntries(metadata);
}

function print(run: Run<unknown>, monitor: Monitor): void {
  if (run.json) run.printJson(monitor);
  else run.table(COLUMNS, [monitor], '');
}

/**
 * `platform monitors list|create|delete <ledger>` (docs/api.md §3.6): balance monitors, whose crossings the
 * webhooks service sends as `ledger.balance_monitor_triggered`.
 */
export function registerMonitors(program: Command, cli: Cli): void {
  const monitors = program
    .command('monitors')
    .description('balance monitors: a webhook event when a balance crosses a threshold');
  monitors
    .command('list', { isDefault: true })
    .description("list a ledger's balance monitors")
    .argument('<ledger>', 'ledger name')
    .action(
      action(cli, async (run, rawLedger) => {
        const client = await run.client();
        const path = `/api/ledger/v2/${ledgerName(rawLedger!)}/monitors`;
        await run.printList(client.list<Monitor>(path), COLUMNS, 'no monitors');
        return 0;
      }),
    );
  monitors
    .command('create')
    .description('create a balance monitor (one condition)')
    .argument('<ledger>', 'ledger name')
    .requiredOption('--account <pattern>', 'an address or pattern (users:*)')
    .requiredOption('--asset <asset>', 'the asset (USD/2)')
    .option('--below <n>', 'when the balance goes below n')
    .option('--above <n>', 'when the balance goes above n')
    .option('--negative', 'when the balance becomes negative')
    .option('--changes', 'on every change of the balance')
    .option('--available', 'watch the available balance (posted − held by open holds) instead')
    .option('--meta <key=value...>', 'metadata')
    .action(
      action<CreateOptions>(cli, async (run, rawLedger) => {
        const ledger = ledgerName(rawLedger!);
        if (!ASSET.test(run.opts.asset))
          throw new UsageError(`--asset "${run.opts.asset}" is not an asset`);
        const body = {
          account: run.opts.account,
          asset: run.opts.asset,
          condition: conditionOf(run.opts),
          metadata: metadataOf(run.opts.meta),
        };
        const client = await run.client();
        const { data } = await client.json<{ data: Monitor }>(
          'POST',
          `/api/ledger/v2/${ledger}/monitors`,
          { body },
        );
        print(run, data);
        return 0;
      }),
    );
  monitors
    .command('delete')
    .description('delete a balance monitor')
    .argument('<ledger>', 'ledger name')
    .argument('<id>', 'monitor id')
    .action(
      action(cli, async (run, rawLedger, id) => {
        const client = await run.client();
        await client.json(
          'DELETE',
          `/api/ledger/v2/${ledgerName(rawLedger!)}/monitors/${encodeURIComponent(id!)}`,
        );
        if (!run.json) run.line(`deleted monitor ${id}`);
        return 0;
      }),
    );
}
