import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { CliError, UsageError } from '../errors.js';
import { action, type Cli } from '../kit.js';

/** An exporter as the API answers it (header values are never in the answer: `********`). */
interface Exporter {
  id: string;
  driver: string;
  createdAt: string;
  config: Record<string, unknown>;
}

/** Where an exporter sends, in a few words: no secret is ever part of it. */
function targetOf(e: Exporter): string {
  const c = e.config as { bucket?: string; prefix?: string; url?: string; stream?: string };
  if (e.driver === 's3') return `s3://${c.bucket}/${c.prefix ?? ''}`;
  if (e.driver === 'http') return c.url ?? '';
  if (e.driver === 'kinesis') return c.stream ?? '';
  return '';
}

const COLUMNS = [
  { header: 'id', value: (e: Exporter) => e.id },
  { header: 'driver', value: (e: Exporter) => e.driver },
  { header: 'target', value: (e: Exporter) => targetOf(e) },
  { header: 'created', value: (e: Exporter) => e.createdAt },
];

interface CreateOptions {
  prefix?: string;
  format?: string;
  region?: string;
  endpoint?: string;
  headersFile?: string;
  batchSize?: string;
}

/** Which options each driver takes (`--batch-size` all of them); another driver's option is a usage error. */
const DRIVER_OPTIONS: Record<string, readonly (keyof CreateOptions)[]> = {
  s3: ['prefix', 'format', 'region', 'endpoint'],
  http: ['headersFile'],
  kinesis: ['region', 'endpoint'],
};
const flag = (name: string) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** The largest headers file read: far above twenty 4 KB headers, the API's own limit. */
const MAX_HEADERS_FILE_BYTES = 128 * 1024;

/** Standard input to its end, stopped past the headers file's limit. */
async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > MAX_HEADERS_FILE_BYTES) break;
  }
  return Buffer.concat(chunks);
}

/**
 * An http exporter's headers, from a JSON file (`-`: stdin): their values are secrets (a bearer token), which a
 * command line would leave in shell history and the process list.
 */
async function headersFrom(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    const bytes = path === '-' ? await readStdin() : await readFile(path);
    if (bytes.length > MAX_HEADERS_FILE_BYTES)
      throw new Error(`larger than ${MAX_HEADERS_FILE_BYTES} bytes`);
    text = bytes.toString('utf8');
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${(e as Error).message}`);
  }
  let headers: unknown;
  try {
    headers = JSON.parse(text);
  } catch {
    headers = undefined;
  }
  if (
    typeof headers !== 'object' ||
    headers === null ||
    Array.isArray(headers) ||
    Object.values(headers).some((v) => typeof v !== 'string')
  )
    throw new UsageError(
      `--headers-file ${path}: expected a JSON object of header names to string values`,
    );
  return headers as Record<string, string>;
}

/** The driver's own target field: an s3 `s3://bucket/prefix` gives both (a `--prefix` too is a usage error). */
function targetConfig(
  driver: string,
  target: string,
  opts: CreateOptions,
): Record<string, unknown> {
  if (driver === 'http') return { url: target };
  if (driver === 'kinesis') return { stream: target };
  const uri = /^s3:\/\/([^/]+)\/?(.*)$/.exec(target);
  if (!uri) return { bucket: target };
  if (uri[2] && opts.prefix !== undefined)
    throw new UsageError(`${target} names a prefix already: drop --prefix`);
  return { bucket: uri[1], ...(uri[2] ? { prefix: uri[2] } : {}) };
}

/**
 * The API's `{driver, config}` from the command line: the target and the driver's options; the API checks their
 * values (a clear 400 naming the field).
 */
export async function exporterConfiguration(
  driver: string,
  target: string,
  opts: CreateOptions,
): Promise<{ driver: string; config: Record<string, unknown> }> {
  const allowed = DRIVER_OPTIONS[driver];
  if (!allowed)
    throw new UsageError(
      `"${driver}" is not a driver this command creates (${Object.keys(DRIVER_OPTIONS).join(', ')})`,
    );
  const given = (Object.keys(opts) as (keyof CreateOptions)[]).filter(
    (k) => opts[k] !== undefined && k !== 'batchSize',
  );
  const foreign = given.filter((k) => !allowed.includes(k));
  if (foreign.length > 0)
    throw new UsageError(`${foreign.map(flag).join(', ')}: not an option of the ${driver} driver`);
  const config = targetConfig(driver, target, opts);
  for (const key of given) if (key !== 'headersFile') config[key] = opts[key];
  if (opts.headersFile !== undefined) config.headers = await headersFrom(opts.headersFile);
  if (opts.batchSize !== undefined) {
    if (!/^\d{1,9}$/.test(opts.batchSize))
      throw new UsageError(
        `--batch-size "${opts.batchSize}": expected a whole number of log entries`,
      );
    config.batching = { maxItems: Number(opts.batchSize) };
  }
  return { driver, config };
}

/** A UUID, as the API issues exporter ids: anything else is a usage error, not a 404. */
function exporterId(raw: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(raw))
    throw new UsageError(`"${raw}" is not an exporter id`);
  return raw;
}

function registerCreate(exporters: Command, cli: Cli): void {
  exporters
    .command('create')
    .description(
      'create an exporter: s3 (Parquet or NDJSON objects), http (batches POSTed), kinesis',
    )
    .argument('<driver>', 's3, http or kinesis')
    .argument(
      '<target>',
      's3: a bucket or s3://bucket/prefix/ (locally, the emulator has "exports"); http: a URL; kinesis: a stream',
    )
    .option('--prefix <prefix>', 's3: the key prefix, a folder')
    .option('--format <format>', 's3: parquet (default) or ndjson')
    .option('--region <region>', "s3, kinesis: the AWS region (default: the platform's)")
    .option('--endpoint <url>', 's3, kinesis: an emulator (the local platform only)')
    .option(
      '--headers-file <path>',
      'http: a JSON object of headers to send (- for stdin); values are never printed',
    )
    .option('--batch-size <n>', 'log entries per batch (1-1000, default 100)')
    .action(
      action<CreateOptions>(cli, async (run, driver, target) => {
        const body = await exporterConfiguration(
          driver!,
          target!,
          run.command.opts<CreateOptions>(),
        );
        const client = await run.client();
        const { data } = await client.json<{ data: Exporter }>(
          'POST',
          '/api/ledger/v2/_/exporters',
          {
            body,
          },
        );
        if (run.json) run.printJson(data);
        else run.line(`created exporter ${data.id} (${data.driver} ${targetOf(data)})`);
        return 0;
      }),
    );
}

/**
 * `platform exporters list|create|delete`: where pipelines send a ledger's log (docs/api.md, exporters and
 * pipelines). Secrets (an http exporter's header values) come from a file, never the command line, and are never
 * printed: the API answers them as `********`.
 */
export function registerExporters(program: Command, cli: Cli): void {
  const exporters = program
    .command('exporters')
    .description('exporters: where pipelines send logs');
  exporters
    .command('list', { isDefault: true })
    .description('list the exporters: driver and target (header values are never shown)')
    .action(
      action(cli, async (run) => {
        const client = await run.client();
        await run.printList(
          client.list<Exporter>('/api/ledger/v2/_/exporters'),
          COLUMNS,
          'no exporters',
        );
        return 0;
      }),
    );
  registerCreate(exporters, cli);
  exporters
    .command('delete')
    .description('delete an exporter and every pipeline that sends through it')
    .argument('<id>', 'exporter id')
    .action(
      action(cli, async (run, rawId) => {
        const client = await run.client();
        await client.json('DELETE', `/api/ledger/v2/_/exporters/${exporterId(rawId!)}`);
        if (!run.json) run.line(`deleted exporter ${rawId} and its pipelines`);
        return 0;
      }),
    );
}
