import type { Command } from 'commander';
import { ledgerName, limitArg } from '../args.js';
import { UsageError } from '../errors.js';
import { action, type Cli } from '../kit.js';
import { printTransactions, type TransactionView } from './transactions-view.js';

/** `platform tx list <ledger> [--account ADDRESS] [--limit N]`: newest first (GET /v2/<ledger>/transactions). */
export function registerTxList(tx: Command, cli: Cli): void {
  tx.command('list')
    .description("list a ledger's transactions, newest first")
    .argument('<ledger>', 'ledger name')
    .option('--account <address>', 'only transactions moving this account (or prefix users:)')
    .option('--limit <n>', 'print at most n transactions (default 100)')
    .action(
      action<{ account?: string; limit?: string }>(cli, async (run, raw) => {
        const ledger = ledgerName(raw!);
        const limit = limitArg(run.opts.limit);
        const { account } = run.opts;
        if (account !== undefined && !/^[a-zA-Z0-9_:-]+$/.test(account))
          throw new UsageError(`--account: "${account}" is not an address or address pattern`);
        const client = await run.client();
        const items = client.list<TransactionView>(
          `/api/ledger/v2/${ledger}/transactions`,
          account !== undefined ? { query: JSON.stringify({ $match: { account } }) } : {},
          limit,
        );
        if (run.json) {
          await run.printList(items, [], '');
          return 0;
        }
        const rows: TransactionView[] = [];
        for await (const tx of items) rows.push(tx);
        printTransactions(run, rows);
        return 0;
      }),
    );
}
