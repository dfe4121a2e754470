import type { Command } from 'commander';
import { collect, keyValues, ledgerName, limitArg } from '../args.js';
import { action, type Cli } from '../kit.js';
import { formatMetadata } from '../output/format.js';

interface Ledger {
  name: string;
  bucket: string;
  addedAt: string;
  metadata: Record<string, string>;
  features: Record<string, string>;
}

/** `platform ledgers [list]` and `platform ledgers create <name>` (GET and POST /api/ledger/v2[/<name>]). */
export function registerLedgers(program: Command, cli: Cli): void {
  const ledgers = program.command('ledgers').description('list or create ledgers');

  ledgers
    .command('list', { isDefault: true })
    .description('list ledgers (the default)')
    .option('--limit <n>', 'print at most n ledgers (default 100)')
    .action(
      action<{ limit?: string }>(cli, async (run) => {
        const client = await run.client();
        await run.printList(
          client.list<Ledger>('/api/ledger/v2', {}, limitArg(run.opts.limit)),
          [
            { header: 'name', value: (l) => l.name },
            { header: 'bucket', value: (l) => l.bucket },
            { header: 'added at', value: (l) => l.addedAt },
            { header: 'metadata', value: (l) => formatMetadata(l.metadata) },
          ],
          'no ledgers',
        );
        return 0;
      }),
    );

  ledgers
    .command('create')
    .description('create a ledger')
    .argument('<name>', 'ledger name (1-63 of a-z A-Z 0-9 _ -)')
    .option('--bucket <bucket>', 'bucket to create it in (default _default)')
    .option(
      '--feature <KEY=VALUE>',
      'a ledger feature, e.g. HASH_LOGS=DISABLED (repeatable)',
      collect,
    )
    .option('--metadata <key=value>', 'ledger metadata (repeatable)', collect)
    .action(
      action<{ bucket?: string; feature?: string[]; metadata?: string[] }>(
        cli,
        async (run, raw) => {
          const name = ledgerName(raw!);
          const features = keyValues('--feature', run.opts.feature);
          const metadata = keyValues('--metadata', run.opts.metadata);
          const client = await run.client();
          await client.json('POST', `/api/ledger/v2/${name}`, {
            body: {
              ...(run.opts.bucket !== undefined ? { bucket: run.opts.bucket } : {}),
              ...(Object.keys(features).length > 0 ? { features } : {}),
              ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
            },
          });
          if (!run.json) {
            run.line(`created ledger ${name}`);
            return 0;
          }
          const { data } = await client.json<{ data: Ledger }>('GET', `/api/ledger/v2/${name}`);
          run.printJson(data);
          return 0;
        },
      ),
    );
}
