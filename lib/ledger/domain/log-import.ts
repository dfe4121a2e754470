import * as v from 'valibot';
import { ImportError } from '../../errors/index.js';
import { parseJson } from '../../json/bigint-json.js';
import { canonicalJson } from '../../json/canonical.js';
import { assertJsonText } from '../../json/json-limits.js';
import { type LogEntry, logHash } from './logs.js';

/** A line of an export, at most: a log entry holds at most 100 postings and bounded metadata, far below this. */
export const MAX_IMPORT_LINE_BYTES = 1024 * 1024;

const logLineSchema = v.object({
  id: v.pipe(v.bigint('must be an integer'), v.minValue(1n, 'must be at least 1')),
  type: v.picklist(
    [
      'NEW_TRANSACTION',
      'SET_METADATA',
      'DELETE_METADATA',
      'REVERTED_TRANSACTION',
      // A hold's entries replay only into a ledger with PENDING_TRANSFERS (their commands require it).
      'CREATED_PENDING',
      'VOIDED_PENDING',
    ],
    'must be a log type',
  ),
  data: v.record(v.string(), v.unknown(), 'must be an object'),
  date: v.string('must be a date-time string'),
  hash: v.optional(v.string('must be a string'), ''),
  idempotencyKey: v.optional(v.string('must be a string'), ''),
  schemaVersion: v.optional(v.string('must be a string')),
});

/** One line of an export (the Log of the v2 log list, one per line), checked for shape; `line` counts from 1. */
export function parseLogLine(text: string, line: number): LogEntry {
  let json: unknown;
  try {
    // The request bodies' one limit (depth, lone surrogates), before the recursive parser sees the line.
    assertJsonText(text, `line ${line}`);
  } catch (err) {
    throw new ImportError((err as Error).message);
  }
  try {
    json = parseJson(text);
  } catch {
    throw new ImportError(`line ${line}: not a JSON object`);
  }
  const parsed = v.safeParse(logLineSchema, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
    throw new ImportError(`line ${line}: ${path ? `${path}: ` : ''}${issue.message}`);
  }
  const { id, ...rest } = parsed.output;
  return { ...rest, id: Number(id) };
}

/**
 * Follows an imported log as it streams: ids run 1, 2, 3... without a gap, and a hashed entry's hash is recomputed
 * from the previous entry's (the chain of `logHash`). An export is all hashed or all unhashed (a ledger's features
 * do not change): an entry without a hash after hashed ones, or with one after unhashed ones, breaks it too.
 */
export class ImportChain {
  private previousHash: string;
  private expectedId: number;
  private readonly continues: boolean;
  private hashed: boolean | undefined;

  /** `last`: the ledger's last log, when the import continues it (its ids and chain go on from there). */
  constructor(last?: Pick<LogEntry, 'id' | 'hash'>) {
    this.previousHash = last?.hash ?? '';
    this.expectedId = (last?.id ?? 0) + 1;
    this.continues = last !== undefined;
  }

  check(entry: LogEntry): void {
    if (entry.id !== this.expectedId)
      throw new ImportError(
        `log ${entry.id}: expected log ${this.expectedId} here (ids start at ${this.continues ? "the ledger's last + 1" : '1'} and follow without gaps)`,
      );
    const hashed = entry.hash !== '';
    if (this.hashed !== undefined && hashed !== this.hashed)
      throw new ImportError(
        `log ${entry.id}: ${hashed ? 'hashed' : 'no hash'}, unlike the logs before it`,
      );
    this.hashed = hashed;
    if (hashed) {
      const { hash, ...rest } = entry;
      const expected = logHash(this.previousHash, rest);
      if (hash !== expected)
        throw new ImportError(
          `log ${entry.id}: hash mismatch (the entry or one before it was changed)`,
        );
      this.previousHash = hash;
    }
    this.expectedId++;
  }
}

/**
 * Whether the ledger's own entry for a replayed log is the imported one: same type, data and date. A revert may name
 * the reverted transaction by its id alone (`{"revertedTransaction":{"id":N}}`, as a converted reference export
 * does): its other fields are the ledger's record of that transaction, not part of the decision, and are then not
 * compared.
 */
export function sameLog(
  replayed: Pick<LogEntry, 'type' | 'data' | 'date'>,
  imported: LogEntry,
): boolean {
  const reverted = imported.data.revertedTransaction;
  const byIdOnly =
    imported.type === 'REVERTED_TRANSACTION' &&
    typeof reverted === 'object' &&
    reverted !== null &&
    Object.keys(reverted).length === 1 &&
    'id' in reverted;
  const data = byIdOnly
    ? {
        ...replayed.data,
        revertedTransaction: { id: (replayed.data.revertedTransaction as { id: unknown }).id },
      }
    : replayed.data;
  return (
    replayed.type === imported.type &&
    replayed.date === imported.date &&
    canonicalJson(data) === canonicalJson(imported.data)
  );
}
