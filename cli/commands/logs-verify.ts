import type { Command } from 'commander';
import { type ChainBreak, LogChainWalk } from '../../lib/ledger/domain/log-chain.js';
import { logPagesOldestFirst, newestLogId } from '../api/log-pages.js';
import { ledgerName } from '../args.js';
import { UsageError } from '../errors.js';
import { action, type Cli } from '../kit.js';
import { progressLine } from '../output/progress.js';

/**
 * Log entries per request by default. Small on purpose: one entry can be large (100 postings plus metadata), and a
 * Lambda response is capped at 6 MB.
 */
const DEFAULT_PAGE_SIZE = 100;

/**
 * `platform logs verify <ledger>` (and `npm run verify-logs -- <ledger>`): walks the ledger's log over the public
 * API, oldest first, a page at a time, and recomputes its hash chain with the ledger's own function
 * (lib/ledger/domain/log-chain.ts, HASH_LOGS=SYNC). It trusts nothing but the log list: an entry edited in the
 * table, deleted or inserted shows up as a broken link. Exit 0 verified; 1 broken (or not verifiable), like any
 * failure; the log up to the newest entry at the start is checked (later writes are left for the next run).
 */
export function registerLogs(program: Command, cli: Cli): void {
  const logs = program.command('logs').description("a ledger's log");
  logs
    .command('verify')
    .description("verify a ledger's log hash chain, page by page")
    .argument('<ledger>', 'ledger name')
    .option('--page-size <n>', `log entries per request, 1 to 1000 (default ${DEFAULT_PAGE_SIZE})`)
    .action(
      action<{ pageSize?: string }>(cli, async (run, raw) => {
        const ledger = ledgerName(raw!);
        const pageSize = pageSizeArg(run.opts.pageSize);
        const client = await run.client();
        const lastId = await newestLogId(client, ledger);
        const progress = progressLine(cli.io.stderr, 'verifying logs', lastId, !run.json);
        const walk = new LogChainWalk();
        let broken: ChainBreak | undefined;
        try {
          pages: for await (const page of logPagesOldestFirst(client, ledger, lastId, pageSize)) {
            for (const entry of page) {
              broken = walk.next(entry);
              if (broken) break pages;
            }
            progress.update(walk.checked);
          }
        } finally {
          progress.stop();
        }
        // Entries at the end deleted while the walk ran: the window came back short with nothing after it.
        if (!broken && walk.checked < lastId)
          broken = {
            brokenAt: walk.checked + 1,
            reason: `expected log ${walk.checked + 1} here, found the end of the log (missing)`,
            expected: `log ${walk.checked + 1}`,
            found: 'the end of the log',
          };
        if (run.json)
          run.printJson(
            broken ? { ok: false, ledger, ...broken } : { ok: true, ledger, checked: walk.checked },
          );
        else if (broken) run.line(`broken at log ${broken.brokenAt}: ${broken.reason}`);
        else run.line(`ok: ${walk.checked} log entries verified`);
        return broken ? 1 : 0;
      }),
    );
}

function pageSizeArg(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PAGE_SIZE;
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > 1000)
    throw new UsageError('--page-size: must be an integer from 1 to 1000');
  return Number(raw);
}
