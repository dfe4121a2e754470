import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { registerAccounts } from './commands/accounts.js';
import { registerBalanceHistory } from './commands/balance-history.js';
import { registerBalances } from './commands/balances.js';
import { registerExporters } from './commands/exporters.js';
import { registerHolds } from './commands/holds.js';
import { registerLedgers } from './commands/ledgers.js';
import { registerLogin } from './commands/login.js';
import { registerLogs } from './commands/logs-verify.js';
import { registerMonitors } from './commands/monitors.js';
import { registerPipelines } from './commands/pipelines.js';
import { registerTransfer } from './commands/transfer.js';
import { registerTxList } from './commands/tx-list.js';
import { registerTxSend } from './commands/tx-send.js';
import { registerTxShow } from './commands/tx-show.js';
import { registerWebhooks } from './commands/webhooks-tail.js';
import { CliError, jsonError } from './errors.js';
import { type Cli, type CliIo, DEFAULT_URL } from './kit.js';
import { readCliVariables } from './variables.js';

/**
 * `platform ...` (`bin/platform.mjs`): the command line of the platform's public API. Exit codes: 0 done, 1 the
 * command failed (the platform refused, could not be reached, or a log chain is broken), 2 bad usage. Every
 * failure is one line on stderr; usage errors are followed by the command's usage. With `--json` that line is
 * a JSON object instead (`{"error": {...}}`, errors.ts), and no usage follows.
 */
export async function main(
  argv: readonly string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
  variables: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const cli: Cli = { io, variables: readCliVariables(variables), exitCode: 0 };
  // Read before parsing: a usage error may stop the parse before the option is.
  const json = argv.includes('--json');
  const program = buildProgram(cli, json);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return cli.exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end here too. Commander has printed the message and the usage, unless --json.
      if (e.exitCode === 0) return 0;
      if (json) io.stderr.write(`${jsonError(usageMessage(e.message), 2)}\n`);
      return 2;
    }
    const message =
      e instanceof CliError
        ? e.message
        : e instanceof Error
          ? `${e.name}: ${e.message}`
          : String(e);
    io.stderr.write(json ? `${jsonError(message, 1, e)}\n` : `error: ${message}\n`);
    return 1;
  }
}

/** Commander's message without its `error: ` prefix (a UsageError's message carries one too). */
const usageMessage = (message: string) => message.replace(/^(error: )+/, '');

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

function buildProgram(cli: Cli, json: boolean): Command {
  const program = new Command('platform')
    .description("the platform's ledger, webhooks and logs from the command line")
    .version(version, '--version')
    .option('--json', 'machine-readable output: exact JSON on stdout (big integers as numbers)')
    .option(
      '--url <url>',
      `the platform (default: the stored profile, PLATFORM_URL, ${DEFAULT_URL})`,
    )
    .option('--client-id <id>', 'client credentials for this run (or PLATFORM_CLIENT_ID)')
    .option(
      '--client-secret <secret>',
      'client credentials for this run (or PLATFORM_CLIENT_SECRET)',
    )
    .option('--token <token>', 'a bearer token for this run (or PLATFORM_TOKEN)')
    // Settings the subcommands inherit: errors thrown (main decides the exit code), usage after an error.
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({
      writeOut: (s) => cli.io.stdout.write(s),
      // With --json, main writes the error as JSON: no text message and no usage after it.
      writeErr: (s) => (json ? true : cli.io.stderr.write(s)),
    });
  registerLogin(program, cli);
  registerLedgers(program, cli);
  registerAccounts(program, cli);
  registerBalances(program, cli);
  registerBalanceHistory(program, cli);
  registerMonitors(program, cli);
  registerHolds(program, cli);
  registerPipelines(program, cli);
  registerExporters(program, cli);
  const tx = program.command('tx').description('send, list, show and revert transactions');
  registerTxSend(tx, cli);
  registerTxList(tx, cli);
  registerTxShow(tx, cli);
  registerLogs(program, cli);
  registerWebhooks(program, cli);
  registerTransfer(program, cli);
  return program;
}
