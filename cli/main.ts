import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { registerAccounts } from './commands/accounts.js';
import { registerBalanceHistory } from './commands/balance-history.js';
import { registerBalances } from './commands/balances.js';
import { registerLedgers } from './commands/ledgers.js';
import { registerLogin } from './commands/login.js';
import { registerLogs } from './commands/logs-verify.js';
import { registerTransfer } from './commands/transfer.js';
import { registerTxList } from './commands/tx-list.js';
import { registerTxSend } from './commands/tx-send.js';
import { registerTxShow } from './commands/tx-show.js';
import { registerWebhooks } from './commands/webhooks-tail.js';
import { readCliEnv } from './env.js';
import { CliError } from './errors.js';
import { type Cli, type CliIo, DEFAULT_URL } from './kit.js';

/**
 * `platform ...` (`bin/platform.mjs`): the command line of the platform's public API. Exit codes: 0 done, 1 the
 * command failed (the platform refused, could not be reached, or a log chain is broken), 2 bad usage. Every
 * failure is one line on stderr; usage errors are followed by the command's usage.
 */
export async function main(
  argv: readonly string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const cli: Cli = { io, env: readCliEnv(env), exitCode: 0 };
  const program = buildProgram(cli);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return cli.exitCode;
  } catch (e) {
    // Commander has printed its message (and the usage) already; --help and --version end here too.
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    const message =
      e instanceof CliError
        ? e.message
        : e instanceof Error
          ? `${e.name}: ${e.message}`
          : String(e);
    io.stderr.write(`error: ${message}\n`);
    return 1;
  }
}

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

function buildProgram(cli: Cli): Command {
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
      writeErr: (s) => cli.io.stderr.write(s),
    });
  registerLogin(program, cli);
  registerLedgers(program, cli);
  registerAccounts(program, cli);
  registerBalances(program, cli);
  registerBalanceHistory(program, cli);
  const tx = program.command('tx').description('send, list, show and revert transactions');
  registerTxSend(tx, cli);
  registerTxList(tx, cli);
  registerTxShow(tx, cli);
  registerLogs(program, cli);
  registerWebhooks(program, cli);
  registerTransfer(program, cli);
  return program;
}
