import { createDocumentClient } from '../../lib/dynamo/client.js';
import { backfillDueKeys } from '../../lib/payments/store/due-backfill.js';

/**
 * `npx tsx infra/commands/payments-due-backfill.ts --table <payments table> --region <r> [--endpoint url]`: the
 * one-off repair of a deployment whose connectors were installed before the payments table's `due` index (docs/
 * operations.md). Runs with the operator's AWS credentials (the connectors' worker is granted no Scan), page after
 * page to the table's end; safe to run again or beside live traffic (each update is conditional).
 */
function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : undefined;
}

const table = option('table');
if (!table) {
  console.error(
    'usage: payments-due-backfill --table <payments table> --region <r> [--endpoint url]',
  );
  process.exit(2);
}
const endpoint = option('endpoint');
const region = option('region');
if (!region && !endpoint) {
  console.error("payments-due-backfill: --region is required (the deployment's region)");
  process.exit(2);
}
const doc = createDocumentClient({
  ...(endpoint ? { endpoint } : {}),
  ...(region ? { region } : {}),
});
let start: Record<string, unknown> | undefined;
const total = { scanned: 0, updated: 0 };
do {
  const page = await backfillDueKeys(doc, table, { maxPages: 10, ...(start ? { start } : {}) });
  total.scanned += page.scanned;
  total.updated += page.updated;
  start = page.next;
  console.log(`scanned ${total.scanned} items, gave ${total.updated} their due key`);
} while (start);
doc.destroy();
