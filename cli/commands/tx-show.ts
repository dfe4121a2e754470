import type { Command } from 'commander';
import { ledgerName } from '../args.js';
import { UsageError } from '../errors.js';
import { action, type Cli, type Run } from '../kit.js';
import { printTransactions, type TransactionView } from './transactions-view.js';

/** A transaction id as the API takes it: a non-negative integer. */
function transactionId(raw: string): string {
  if (!/^\d{1,20}$/.test(raw)) throw new UsageError(`"${raw}" is not a transaction id`);
  return raw;
}

/** One transaction: with --json its whole answer (volumes included), else its table. */
function printOne(run: Run<unknown>, tx: TransactionView): void {
  if (run.json) {
    run.printJson(tx);
    return;
  }
  printTransactions(run, [tx]);
}

/**
 * `platform tx show <ledger> <id>` (GET /v2/<ledger>/transactions/<id>, with its volumes) and
 * `platform tx revert <ledger> <id> [--force] [--at-effective-date]` (POST .../revert): the revert printed as the
 * new transaction it wrote.
 */
export function registerTxShow(tx: Command, cli: Cli): void {
  tx.command('show')
    .description('show one transaction (--json: with its pre- and post-commit volumes)')
    .argument('<ledger>', 'ledger name')
    .argument('<id>', 'transaction id')
    .action(
      action(cli, async (run, rawLedger, rawId) => {
        const ledger = ledgerName(rawLedger!);
        const id = transactionId(rawId!);
        const client = await run.client();
        const { data } = await client.json<{ data: TransactionView }>(
          'GET',
          `/api/ledger/v2/${ledger}/transactions/${id}`,
          { query: { expand: 'volumes' } },
        );
        printOne(run, data);
        return 0;
      }),
    );
  tx.command('revert')
    .description('revert a transaction: a new one with its postings reversed')
    .argument('<ledger>', 'ledger name')
    .argument('<id>', 'transaction id')
    .option('--force', 'revert even if it takes an account below what it may hold')
    .option('--at-effective-date', "date the revert at the reverted transaction's timestamp")
    .action(
      action<{ force?: boolean; atEffectiveDate?: boolean }>(cli, async (run, rawLedger, rawId) => {
        const ledger = ledgerName(rawLedger!);
        const id = transactionId(rawId!);
        const client = await run.client();
        const { data } = await client.json<{ data: TransactionView }>(
          'POST',
          `/api/ledger/v2/${ledger}/transactions/${id}/revert`,
          {
            query: {
              ...(run.opts.force ? { force: 'true' } : {}),
              ...(run.opts.atEffectiveDate ? { atEffectiveDate: 'true' } : {}),
            },
          },
        );
        printOne(run, data);
        return 0;
      }),
    );
}
