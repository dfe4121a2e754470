import type { Command } from 'commander';
import { ledgerName, limitArg } from '../args.js';
import { UsageError } from '../errors.js';
import { action, type Cli } from '../kit.js';
import { formatMetadata } from '../output/format.js';
import { addressQuery } from './address-filter.js';

interface Account {
  address: string;
  metadata: Record<string, string>;
  firstUsage?: string;
}

interface Volume {
  input: bigint | number;
  output: bigint | number;
  balance: bigint | number;
}

/** An account address as the ledger takes it (segments of `a-zA-Z0-9_-` separated by `:`). */
function address(raw: string): string {
  if (!/^[a-zA-Z0-9_-]+(:[a-zA-Z0-9_-]+)*$/.test(raw) || raw.length > 256)
    throw new UsageError(`"${raw}" is not an account address`);
  return raw;
}

/**
 * `platform accounts [list] <ledger> [--address PATTERN]` (GET /v2/<ledger>/accounts) and
 * `platform accounts show <ledger> <address>` (GET /v2/<ledger>/accounts/<address>, with its volumes).
 */
export function registerAccounts(program: Command, cli: Cli): void {
  const accounts = program.command('accounts').description("list or show a ledger's accounts");
  accounts
    .command('list', { isDefault: true })
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
  accounts
    .command('show')
    .description('show one account: its metadata and its volumes by asset (--json: the answer)')
    .argument('<ledger>', 'ledger name')
    .argument('<address>', 'account address')
    .action(
      action(cli, async (run, rawLedger, rawAddress) => {
        const ledger = ledgerName(rawLedger!);
        const client = await run.client();
        const { data } = await client.json<{
          data: Account & { volumes?: Record<string, Volume> };
        }>('GET', `/api/ledger/v2/${ledger}/accounts/${address(rawAddress!)}`, {
          query: { expand: 'volumes' },
        });
        if (run.json) {
          run.printJson(data);
          return 0;
        }
        run.line(`address   ${data.address}`);
        run.line(`metadata  ${formatMetadata(data.metadata) || '-'}`);
        run.table(
          [
            { header: 'asset', value: ([asset]) => asset },
            { header: 'input', value: ([, v]) => String(v.input) },
            { header: 'output', value: ([, v]) => String(v.output) },
            { header: 'balance', value: ([, v]) => String(v.balance) },
          ],
          Object.entries(data.volumes ?? {}) as [string, Volume][],
          'no volumes',
        );
        return 0;
      }),
    );
}
