import type { Command } from 'commander';
import { ASSET } from '../../lib/money/asset.js';
import { ledgerName } from '../args.js';
import { UsageError } from '../errors.js';
import { action, type Cli, type Run } from '../kit.js';

/** A pending transfer as GET /v2/<ledger>/pending answers it, exact integers. */
interface Hold {
  id: bigint;
  postings: Array<{
    source: string;
    destination: string;
    amount: bigint;
    asset: string;
    posted: bigint;
    voided: bigint;
    remaining: bigint;
  }>;
  metadata: Record<string, string>;
  insertedAt: string;
  expiresAt?: string;
  status: string;
  transactions: bigint[];
}

const COLUMNS = [
  { header: 'id', value: (h: Hold) => String(h.id) },
  { header: 'status', value: (h: Hold) => h.status },
  {
    header: 'postings (posted/amount)',
    value: (h: Hold) =>
      h.postings
        .map((p) => `${p.source}->${p.destination} ${p.posted}/${p.amount} ${p.asset}`)
        .join(', '),
  },
  { header: 'expires', value: (h: Hold) => h.expiresAt ?? '-' },
];

const AMOUNT = /^\d{1,300}$/;
const STATUSES = ['PENDING', 'POSTED', 'VOIDED', 'EXPIRED'];

function amountOf(value: string, flag: string): string {
  if (!AMOUNT.test(value)) throw new UsageError(`${flag} "${value}" is not a whole amount`);
  return value;
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

function print(run: Run<unknown>, hold: Hold): void {
  if (run.json) run.printJson(hold);
  else run.table(COLUMNS, [hold], '');
}

const holdPath = (ledger: string, id: string) => {
  if (!/^\d{1,15}$/.test(id)) throw new UsageError(`"${id}" is not a hold id`);
  return `/api/ledger/v2/${ledgerName(ledger)}/pending/${id}`;
};

/**
 * `platform holds list|create|post|void <ledger>` (docs/api.md §3.6): pending transfers on a ledger with
 * PENDING_TRANSFERS. `create` makes a hold of one posting (several: the API); `post` moves held money as a
 * transaction, in full or in part.
 */
export function registerHolds(program: Command, cli: Cli): void {
  const holds = program
    .command('holds')
    .description('pending transfers: hold money, then post it (in part) or void it');
  holds
    .command('list', { isDefault: true })
    .description("list a ledger's holds, newest first")
    .argument('<ledger>', 'ledger name')
    .option('--status <status>', STATUSES.join(' | '))
    .action(
      action<{ status?: string }>(cli, async (run, rawLedger) => {
        const { status } = run.opts;
        if (status !== undefined && !STATUSES.includes(status))
          throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
        const client = await run.client();
        const path = `/api/ledger/v2/${ledgerName(rawLedger!)}/pending`;
        await run.printList(client.list<Hold>(path, status ? { status } : {}), COLUMNS, 'no holds');
        return 0;
      }),
    );
  registerCreate(holds, cli);
  registerResolve(holds, cli);
}

function registerCreate(holds: Command, cli: Cli): void {
  holds
    .command('create')
    .description('hold an amount from a source for a destination')
    .argument('<ledger>', 'ledger name')
    .argument('<source>', 'the account the money is held on')
    .argument('<destination>', 'the account it is held for')
    .argument('<amount>', 'a whole amount in the asset’s smallest unit')
    .argument('<asset>', 'the asset (USD/2)')
    .option('--timeout <seconds>', 'release by itself after this many seconds')
    .option('--meta <key=value...>', 'metadata')
    .action(
      action<{ timeout?: string; meta?: string[] }>(
        cli,
        async (run, rawLedger, source, destination, amount, asset) => {
          if (!ASSET.test(asset!)) throw new UsageError(`"${asset}" is not an asset`);
          const { timeout } = run.opts;
          if (timeout !== undefined && !/^\d{1,8}$/.test(timeout))
            throw new UsageError(`--timeout "${timeout}" is not a number of seconds`);
          const body = {
            postings: [{ source, destination, amount: amountOf(amount!, 'amount'), asset }],
            metadata: metadataOf(run.opts.meta),
            ...(timeout !== undefined ? { timeout: Number(timeout) } : {}),
          };
          const client = await run.client();
          const { data } = await client.json<{ data: Hold }>(
            'POST',
            `/api/ledger/v2/${ledgerName(rawLedger!)}/pending`,
            { body },
          );
          print(run, data);
          return 0;
        },
      ),
    );
}

function registerResolve(holds: Command, cli: Cli): void {
  holds
    .command('post')
    .description(
      'post a hold: all that remains, or --amount per posting; --final releases the rest',
    )
    .argument('<ledger>', 'ledger name')
    .argument('<id>', 'hold id')
    .option('--amount <n...>', 'the amount to post, one per posting of the hold')
    .option('--final', 'release what remains after this post')
    .action(
      action<{ amount?: string[]; final?: boolean }>(cli, async (run, rawLedger, id) => {
        const body = {
          ...(run.opts.amount
            ? { amounts: run.opts.amount.map((a) => amountOf(a, '--amount')) }
            : {}),
          ...(run.opts.final ? { final: true } : {}),
        };
        const client = await run.client();
        const { data } = await client.json<{
          data: { pending: Hold; transaction: { id: bigint } };
        }>('POST', `${holdPath(rawLedger!, id!)}/post`, { body });
        if (run.json) run.printJson(data);
        else {
          run.table(COLUMNS, [data.pending], '');
          run.line(`transaction ${data.transaction.id}`);
        }
        return 0;
      }),
    );
  holds
    .command('void')
    .description('release all that remains of a hold')
    .argument('<ledger>', 'ledger name')
    .argument('<id>', 'hold id')
    .action(
      action(cli, async (run, rawLedger, id) => {
        const client = await run.client();
        const { data } = await client.json<{ data: Hold }>(
          'POST',
          `${holdPath(rawLedger!, id!)}/void`,
        );
        print(run, data);
        return 0;
      }),
    );
}
