import type { Command } from 'commander';
import { ACCOUNT_ADDRESS } from '../../lib/ledger/domain/names.js';
import { ASSET } from '../../lib/money/asset.js';
import { ledgerName, limitArg } from '../args.js';
import { UsageError } from '../errors.js';
import { action, type Cli } from '../kit.js';

/** One point of GET /v2/<ledger>/accounts/<address>/balances/history, exact integers. */
interface Point {
  timestamp: string;
  txId?: bigint;
  input: bigint;
  output: bigint;
  balance: bigint;
}

interface HistoryOptions {
  asset?: string;
  from?: string;
  to?: string;
  interval?: string;
  limit?: string;
}

/**
 * `platform balance-history <ledger> <address> --asset A [--from T] [--to T] [--interval 1d]`: an account's
 * balance over effective time, a row per transaction or per sampled instant (docs/api.md §3.6).
 */
export function registerBalanceHistory(program: Command, cli: Cli): void {
  program
    .command('balance-history')
    .description("an account's balance over time in one asset (every change, or sampled)")
    .argument('<ledger>', 'ledger name')
    .argument('<address>', 'account address')
    .requiredOption('--asset <asset>', 'the asset (USD/2)')
    .option('--from <time>', 'first instant, RFC 3339 (required with --interval)')
    .option('--to <time>', 'last instant, RFC 3339 (default: now)')
    .option('--interval <step>', 'sample every step: 30s, 15m, 6h, 1d')
    .option('--limit <n>', 'print at most n rows (default 100)')
    .action(
      action<HistoryOptions>(cli, async (run, rawLedger, address) => {
        const ledger = ledgerName(rawLedger!);
        if (!ACCOUNT_ADDRESS.test(address!))
          throw new UsageError(`"${address}" is not an account address`);
        const { asset, from, to, interval } = run.opts;
        if (!asset || !ASSET.test(asset))
          throw new UsageError(`--asset "${asset}" is not an asset`);
        const client = await run.client();
        await run.printList(
          client.list<Point>(
            `/api/ledger/v2/${ledger}/accounts/${encodeURIComponent(address!)}/balances/history`,
            {
              asset,
              ...(from ? { from } : {}),
              ...(to ? { to } : {}),
              ...(interval ? { interval } : {}),
            },
            limitArg(run.opts.limit),
          ),
          [
            { header: 'time', value: (p) => p.timestamp },
            {
              header: 'tx',
              value: (p) => (p.txId === undefined ? '-' : String(p.txId)),
              align: 'right',
            },
            { header: 'input', value: (p) => String(p.input), align: 'right' },
            { header: 'output', value: (p) => String(p.output), align: 'right' },
            { header: 'balance', value: (p) => String(p.balance), align: 'right' },
          ],
          'no balance history',
        );
        return 0;
      }),
    );
}
