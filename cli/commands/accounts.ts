import type { Command } from 'commander';
import { ledgerName, limitArg } from '../args.js';
import { action, type Cli } from '../kit.js';
import { formatMetadata } from '../output/format.js';
import { addressQuery } from './address-filter.js';

interface Account {
  address: string;
  metadata: Record<string, string>;
  firstUsage?: string;
}

/** `platform accounts <ledger> [--address PATTERN]` (GET /v2/<ledger>/accounts). */
export function registerAccounts(program: Command, cli: Cli): void {
  program
    .command('accounts')
    .description("list a ledger's accounts")
    .argument('<ledger>', 'ledger name')
    .option(
      '--address <pattern>',
      'an address, a prefix ending in ":" (users:), or a segment pattern (users::eur)',
    )
    .option('--limit <n>', 'print at most n accounts (default 100)')
    .action(
      action<{ address?: string; limit?: string }>(cli, async (run, raw) => {
        const ledger = ledgerName(raw!);
        const limit = limitArg(run.opts.limit);
        const client = await run.client();
        await run.printList(
          client.list<Account>(
            `/api/ledger/v2/${ledger}/accounts`,
            addressQuery(run.opts.address),
            limit,
          ),
          [
            { header: 'address', value: (a) => a.address },
            { header: 'first usage', value: (a) => a.firstUsage ?? '' },
            { header: 'metadata', value: (a) => formatMetadata(a.metadata) },
          ],
          'no accounts',
        );
        return 0;
      }),
    );
}
