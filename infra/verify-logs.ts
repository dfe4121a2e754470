/** `npm run verify-logs -- <ledger> [--base-url URL] ...`: verifies a ledger's log hash chain over HTTP. */
import { main } from './commands/verify-logs.js';

process.exitCode = await main(process.argv.slice(2));
