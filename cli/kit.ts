import type { Command } from 'commander';
import { stringifyJson } from '../lib/json/bigint-json.js';
import { PlatformClient } from './api/client.js';
import { CliError, UsageError } from './errors.js';
import { type Column, renderTable } from './output/table.js';
import { type Credentials, readProfile } from './profile.js';
import type { CliVariables } from './variables.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** What every command shares: its streams, the environment read at start, and the exit code it sets. */
export interface Cli {
  io: CliIo;
  variables: CliVariables;
  exitCode: number;
}

/** The options every command takes (registered on the program, `main.ts`). */
export interface GlobalOptions {
  json?: boolean;
  url?: string;
  clientId?: string;
  clientSecret?: string;
  token?: string;
}

/** One command's run: its options (with the global ones), output helpers, and the API client. */
export class Run<O = Record<string, unknown>> {
  readonly opts: GlobalOptions & O;

  constructor(
    readonly cli: Cli,
    readonly command: Command,
  ) {
    this.opts = command.optsWithGlobals<GlobalOptions & O>();
  }

  get json(): boolean {
    return this.opts.json === true;
  }

  /** A line of human output on stdout. */
  line(text = ''): void {
    this.cli.io.stdout.write(`${text}\n`);
  }

  /** A value as one line of exact JSON on stdout (big integers as bare numbers). */
  printJson(value: unknown): void {
    this.cli.io.stdout.write(`${stringifyJson(value)}\n`);
  }

  table<T>(columns: readonly Column<T>[], rows: readonly T[], empty: string): void {
    if (rows.length === 0) this.line(empty);
    else for (const line of renderTable(columns, rows)) this.line(line);
  }

  /**
   * A list: with --json a JSON array written item by item as the pages come (any length, constant memory);
   * otherwise a table of at most `--limit` rows.
   */
  async printList<T>(
    items: AsyncIterable<T>,
    columns: readonly Column<T>[],
    empty: string,
  ): Promise<void> {
    if (this.json) {
      let first = true;
      for await (const item of items) {
        this.cli.io.stdout.write(`${first ? '[' : ',\n'}${stringifyJson(item)}`);
        first = false;
      }
      this.cli.io.stdout.write(first ? '[]\n' : ']\n');
      return;
    }
    const rows: T[] = [];
    for await (const item of items) rows.push(item);
    this.table(columns, rows, empty);
  }

  /**
   * The API client of this run. Credentials from the flags, else the environment (PLATFORM_TOKEN, or
   * PLATFORM_CLIENT_ID and PLATFORM_CLIENT_SECRET), else the stored profile. The URL: --url, else PLATFORM_URL,
   * else the profile's when its credentials are used (a profile's URL goes with its own credentials only), else
   * the local platform.
   */
  async client(): Promise<PlatformClient> {
    const { opts } = this;
    const flagged = credentialsFrom(opts.token, opts.clientId, opts.clientSecret, 'flags');
    const fromEnv = credentialsFrom(
      this.cli.variables.token,
      this.cli.variables.clientId,
      this.cli.variables.clientSecret,
      'environment',
    );
    const profile = flagged || fromEnv ? undefined : await readProfile(this.cli.variables);
    const credentials = flagged ?? fromEnv ?? profile?.credentials;
    if (!credentials)
      throw new CliError(
        'not logged in: run `platform login --client-id ID --client-secret SECRET` (or set PLATFORM_CLIENT_ID and PLATFORM_CLIENT_SECRET)',
      );
    const url = opts.url ?? this.cli.variables.url ?? profile?.url ?? DEFAULT_URL;
    return new PlatformClient(checkUrl(url), credentials);
  }
}

/** Credentials from one source (flags or environment): a token, or a client id with its secret. */
export function credentialsFrom(
  token: string | undefined,
  clientId: string | undefined,
  clientSecret: string | undefined,
  source: 'flags' | 'environment',
): Credentials | undefined {
  if (token !== undefined) {
    if (clientId !== undefined || clientSecret !== undefined)
      throw new UsageError(`${source}: a token, or a client id and secret, not both`);
    return { type: 'token', token };
  }
  if (clientId === undefined && clientSecret === undefined) return undefined;
  if (clientId === undefined || clientSecret === undefined)
    throw new UsageError(
      source === 'flags'
        ? '--client-id and --client-secret go together'
        : 'PLATFORM_CLIENT_ID and PLATFORM_CLIENT_SECRET go together',
    );
  return { type: 'client_credentials', clientId, clientSecret };
}

/** An http(s) URL without trailing slashes (paths are appended to it). */
export function checkUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  if (!URL.canParse(trimmed) || !/^https?:$/.test(new URL(trimmed).protocol))
    throw new UsageError(`"${url}" is not an http(s) URL`);
  return trimmed;
}

/**
 * A command's action: runs the handler with its `Run` and records its exit code (0 unless it returns one). A
 * UsageError becomes commander's own error, so it prints like a bad flag does: the message, then the usage.
 */
export function action<O>(
  cli: Cli,
  handler: (run: Run<O>, ...args: string[]) => Promise<number | undefined>,
) {
  return async (...args: unknown[]): Promise<void> => {
    const command = args[args.length - 1] as Command;
    const positionals = args.slice(0, command.registeredArguments.length) as string[];
    try {
      cli.exitCode = (await handler(new Run<O>(cli, command), ...positionals)) ?? 0;
    } catch (e) {
      if (e instanceof UsageError)
        command.error(`error: ${e.message}`, { exitCode: 2, code: 'platform.usage' });
      throw e;
    }
  };
}
