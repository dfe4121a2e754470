import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { newestLogId } from '../api/log-pages.js';
import { ledgerName } from '../args.js';
import { CliError, UsageError } from '../errors.js';
import { openFile } from '../input-file.js';
import { action, type Cli, type Run } from '../kit.js';
import { progressLine } from '../output/progress.js';
import { importFromReference } from './import-reference.js';

const NEWLINE = 0x0a;

/**
 * `platform export <ledger> [--out FILE]` and `platform import <ledger> <FILE>`: the ledger's whole log as NDJSON,
 * oldest first (POST /v2/<ledger>/logs/export and /logs/import, streamed both ways: nothing is held in memory).
 * The import goes into an existing, empty ledger created with the same features (`ledgers create`); the platform
 * checks the chain and replays each entry (docs/guides/cli.md). `import --from-reference` takes
 * a reference ledger's export instead (import-reference.ts).
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
    .description(
      'import an exported log (NDJSON) into an empty ledger, or a reference (Formance v2) export with --from-reference',
    )
    .argument('[ledger]', 'ledger name (an existing, empty ledger)')
    .argument('[file]', 'the export, or - for stdin')
    .option(
      '--from-reference <file>',
      "a reference ledger's export (POST /v2/{ledger}/logs/export)",
    )
    .option('--ledger <name>', 'with --from-reference: the ledger to import into (existing, empty)')
    .option('--part-bytes <n>', `with --from-reference: bytes per request (default ${PART_BYTES})`)
    .option('--part-logs <n>', `with --from-reference: logs per request (default ${PART_LOGS})`)
    .option(
      '--no-verify-hashes',
      "with --from-reference: do not recompute the reference's hash chain",
    )
    .action(
      action<ImportOptions>(cli, async (run, raw, file) => {
        if (run.opts.fromReference !== undefined) return importReference(run, cli, raw, file);
        if (raw === undefined || file === undefined)
          throw new UsageError(
            'import needs <ledger> <file>, or --from-reference <file> --ledger <name>',
          );
        const ledger = ledgerName(raw);
        // A missing or unreadable file is reported before any request is made.
        const source = file === '-' ? process.stdin : (await openFile(file)).stream;
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

/** Under the platform's 1 MiB request limit, with room for the request's other bytes. */
const PART_BYTES = 900_000;
/** A part is replayed log by log before the platform answers: 250 stays well within API Gateway's 29 s. */
const PART_LOGS = 250;

interface ImportOptions {
  fromReference?: string;
  ledger?: string;
  partBytes?: string;
  partLogs?: string;
  verifyHashes: boolean;
}

async function importReference(
  run: Run<ImportOptions>,
  cli: Cli,
  ...positional: Array<string | undefined>
): Promise<number> {
  const { fromReference: file, ledger: raw, verifyHashes } = run.opts;
  if (positional.some((p) => p !== undefined) || raw === undefined)
    throw new UsageError('--from-reference <file> takes --ledger <name> and no other argument');
  const ledger = ledgerName(raw);
  const client = await run.client();
  const { logs, parts } = await importFromReference(
    client,
    {
      file: file!,
      ledger,
      partBytes: countArg('--part-bytes', run.opts.partBytes, PART_BYTES, 1024, 1024 * 1024),
      partLogs: countArg('--part-logs', run.opts.partLogs, PART_LOGS, 1, 10_000),
      verifyHashes,
    },
    (total) => progressLine(cli.io.stderr, 'importing', total, !run.json),
  );
  if (run.json) run.printJson({ ledger, logs, parts });
  else run.line(`imported ${logs} reference logs into ${ledger} in ${parts} parts`);
  return 0;
}

/** A count option within bounds, or its default. */
function countArg(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`${name} must be an integer from ${min} to ${max}`);
  return n;
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
