import { createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { newestLogId } from '../api/log-pages.js';
import { ledgerName } from '../args.js';
import { CliError } from '../errors.js';
import { action, type Cli } from '../kit.js';

const NEWLINE = 0x0a;

/**
 * `platform export <ledger> [--out FILE]` and `platform import <ledger> <FILE>`: the ledger's whole log as NDJSON,
 * oldest first (POST /v2/<ledger>/logs/export and /logs/import, streamed both ways: nothing is held in memory).
 * The import goes into an existing, empty ledger created with the same features (`ledgers create`); the platform
 * checks the chain and replays each entry (README, "Ledger log export and import").
 */
export function registerTransfer(program: Command, cli: Cli): void {
  program
    .command('export')
    .description("export a ledger's log as NDJSON, oldest first (to stdout, or --out)")
    .argument('<ledger>', 'ledger name')
    .option('--out <file>', 'write to this file (replaced only once the export is complete)')
    .action(
      action<{ out?: string }>(cli, async (run, raw) => {
        const ledger = ledgerName(raw!);
        const { out } = run.opts;
        const client = await run.client();
        // The export streams after its 200: a failed read can only cut it short. The newest id now is a floor.
        const atLeast = await newestLogId(client, ledger);
        const res = await client.stream('POST', `/api/ledger/v2/${ledger}/logs/export`);
        const counter = new LineCounter();
        const temporary = out !== undefined ? `${out}.partial` : undefined;
        const target =
          temporary !== undefined ? createWriteStream(temporary, { mode: 0o600 }) : stdoutSink(cli);
        try {
          // A 200 without a body is an empty log; `fromWeb` wants the DOM stream type, which Node's fetch returns.
          const body = res.body ? Readable.fromWeb(res.body as never) : Readable.from([]);
          await pipeline(body, counter.transform(), target);
          if (counter.lines < atLeast || !counter.endsWithNewline)
            throw new CliError(
              `the export of ${ledger} was cut short after ${counter.lines} logs (the log holds at least ${atLeast})`,
            );
        } catch (e) {
          if (temporary !== undefined) await rm(temporary, { force: true });
          throw e instanceof CliError ? e : new CliError(`export failed: ${(e as Error).message}`);
        }
        if (temporary !== undefined && out !== undefined) {
          await rename(temporary, out);
          if (run.json) run.printJson({ ledger, logs: counter.lines, out });
          else run.line(`exported ${counter.lines} logs of ${ledger} to ${out}`);
        }
        return 0;
      }),
    );

  program
    .command('import')
    .description('import an exported log (NDJSON) into an empty ledger')
    .argument('<ledger>', 'ledger name (an existing, empty ledger)')
    .argument('<file>', 'the export, or - for stdin')
    .action(
      action(cli, async (run, raw, file) => {
        const ledger = ledgerName(raw!);
        // A missing or unreadable file is reported before any request is made.
        const source = file === '-' ? process.stdin : await openFile(file!);
        const client = await run.client();
        const counter = new LineCounter();
        const body = Readable.toWeb(source.pipe(counter.transform())) as ReadableStream<Uint8Array>;
        await client.stream('POST', `/api/ledger/v2/${ledger}/logs/import`, {
          stream: body,
          contentType: 'application/octet-stream',
        });
        if (run.json) run.printJson({ ledger, logs: counter.lines });
        else run.line(`imported ${counter.lines} logs into ${ledger}`);
        return 0;
      }),
    );
}

async function openFile(path: string): Promise<Readable> {
  try {
    const handle = await open(path);
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      throw new Error('not a file');
    }
    return handle.createReadStream();
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${(e as Error).message}`);
  }
}

/** Counts the lines of a byte stream as it passes through (an export holds one log per line). */
class LineCounter {
  private newlines = 0;
  /** Whether the stream so far is empty or ends with a newline (a complete export does). */
  endsWithNewline = true;

  get lines(): number {
    return this.newlines + (this.endsWithNewline ? 0 : 1);
  }

  transform(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        for (const byte of chunk) if (byte === NEWLINE) this.newlines++;
        if (chunk.length > 0) this.endsWithNewline = chunk[chunk.length - 1] === NEWLINE;
        done(null, chunk);
      },
    });
  }
}

/** Standard output as a pipeline's end, left open for whatever the process writes after. */
function stdoutSink(cli: Cli): Writable {
  return new Writable({
    write: (chunk, _encoding, done) => {
      cli.io.stdout.write(chunk) ? done() : cli.io.stdout.once('drain', () => done());
    },
  });
}
