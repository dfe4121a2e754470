import type { Command } from 'commander';
import { ledgerName, limitArg } from '../args.js';
import { action, type Cli } from '../kit.js';
import { addressQuery } from './address-filter.js';

/** One row of GET /v2/<ledger>/volumes: an account's volumes in one asset, exact integers. */
interface VolumeRow {
  account: string;
  asset: string;
  input: bigint;
  output: bigint;
  balance: bigint;
}

/** `platform balances <ledger> [--address PATTERN]`: balances per account and asset (GET /v2/<ledger>/volumes). */
export function registerBalances(program: Command, cli: Cli): void {
  program
    .command('balances')
    .description("balances of a ledger's accounts, per asset")
    .argument('<ledger>', 'ledger name')
    .option(
      '--address <pattern>',
      'an address, a prefix ending in ":" (users:), or a segment pattern (users::eur)',
    )
    .option('--limit <n>', 'print at most n rows (default 100)')
    .action(
      action<{ address?: string; limit?: string }>(cli, async (run, raw) => {
        const ledger = ledgerName(raw!);
        const limit = limitArg(run.opts.limit);
        const client = await run.client();
        await run.printList(
          client.list<VolumeRow>(
            `/api/ledger/v2/${ledger}/volumes`,
            addressQuery(run.opts.address),
            limit,
          ),
          [
            { header: 'account', value: (r) => r.account },
            { header: 'asset', value: (r) => r.asset },
            { header: 'input', value: (r) => String(r.input), align: 'right' },
            { header: 'output', value: (r) => String(r.output), align: 'right' },
            { header: 'balance', value: (r) => String(r.balance), align: 'right' },
          ],
          'no balances',
        );
        return 0;
      }),
    );
}
