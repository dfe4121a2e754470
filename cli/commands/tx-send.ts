import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { collect, keyValues, ledgerName, parsePosting } from '../args.js';
import { CliError, UsageError } from '../errors.js';
import { action, type Cli } from '../kit.js';
import { printTransactions, type TransactionView } from './transactions-view.js';

interface SendOptions {
  posting?: string[];
  numscript?: string;
  var?: string[];
  metadata?: string[];
  reference?: string;
  dryRun?: boolean;
  idempotencyKey?: string;
}

/**
 * `platform tx send <ledger>`: postings (`--posting`, repeated) or a Numscript file (`--numscript`, with `--var`),
 * POST /v2/<ledger>/transactions; `--dry-run` computes it without committing.
 */
export function registerTxSend(tx: Command, cli: Cli): void {
  tx.command('send')
    .description('create a transaction from postings or a Numscript file')
    .argument('<ledger>', 'ledger name')
    .option(
      '--posting <src:dst:amount:ASSET>',
      'a posting, e.g. world:bank:2500:USD/2, or "users:alice shop 2500 USD/2" (repeatable)',
      collect,
    )
    .option('--numscript <file>', 'a Numscript file instead of postings')
    .option(
      '--var <name=value>',
      'a Numscript variable, e.g. amount="USD/2 2500" (repeatable)',
      collect,
    )
    .option('--metadata <key=value>', 'transaction metadata (repeatable)', collect)
    .option('--reference <reference>', 'a unique reference for the transaction')
    .option('--idempotency-key <key>', 'replaying the same key returns the original transaction')
    .option('--dry-run', 'compute the transaction and its volumes without committing it')
    .action(
      action<SendOptions>(cli, async (run, raw) => {
        const ledger = ledgerName(raw!);
        const { opts } = run;
        const postings = (opts.posting ?? []).map(parsePosting);
        if (postings.length > 0 === (opts.numscript !== undefined))
          throw new UsageError('give --posting (one or more) or --numscript, not both');
        if (opts.var && opts.numscript === undefined)
          throw new UsageError('--var goes with --numscript');
        const vars = keyValues('--var', opts.var);
        const metadata = keyValues('--metadata', opts.metadata);
        const script =
          opts.numscript !== undefined
            ? { plain: await readScript(opts.numscript), vars }
            : undefined;
        const client = await run.client();
        const { data } = await client.json<{ data: TransactionView }>(
          'POST',
          `/api/ledger/v2/${ledger}/transactions`,
          {
            query: opts.dryRun ? { dryRun: 'true' } : {},
            body: {
              ...(script ? { script } : { postings }),
              ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
              ...(opts.reference !== undefined ? { reference: opts.reference } : {}),
            },
            ...(opts.idempotencyKey !== undefined
              ? { headers: { 'idempotency-key': opts.idempotencyKey } }
              : {}),
          },
        );
        if (run.json) run.printJson(data);
        else {
          run.line(
            opts.dryRun
              ? 'dry run: nothing was committed; the transaction would be:'
              : `transaction ${data.id} committed`,
          );
          printTransactions(run, [data]);
        }
        return 0;
      }),
    );
}

async function readScript(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${(e as Error).message}`);
  }
}
