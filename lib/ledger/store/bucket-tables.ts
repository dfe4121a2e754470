import { ConfigurationError } from '../../errors/index.js';
import { BUCKET_NAME } from '../domain/names.js';

/**
 * Which DynamoDB table holds each bucket's ledgers. `LEDGER_BUCKET_TABLES` maps bucket names to tables
 * (JSON, e.g. `{"heavy":"platform-prod-ledger-heavy"}`); every other bucket lives in the default table, so
 * a new bucket just works and a heavy one can move to its own table by configuration.
 */
export class BucketTables {
  constructor(
    readonly defaultTable: string,
    private readonly mapped: ReadonlyMap<string, string>,
  ) {}

  tableFor(bucket: string): string {
    return this.mapped.get(bucket) ?? this.defaultTable;
  }

  /** Every ledger table, the default first, each once: what the event dispatcher reads the streams of. */
  all(): string[] {
    return [...new Set([this.defaultTable, ...this.mapped.values()])];
  }

  static fromEnv(defaultTable: string, raw: string | undefined): BucketTables {
    if (!raw) return new BucketTables(defaultTable, new Map());
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new ConfigurationError(
        'LEDGER_BUCKET_TABLES must be a JSON object of bucket name to table name',
      );
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new ConfigurationError(
        'LEDGER_BUCKET_TABLES must be a JSON object of bucket name to table name',
      );
    }
    const mapped = new Map<string, string>();
    for (const [bucket, table] of Object.entries(parsed)) {
      if (!BUCKET_NAME.test(bucket))
        throw new ConfigurationError(
          `LEDGER_BUCKET_TABLES: "${bucket}" is not a valid bucket name`,
        );
      if (typeof table !== 'string' || !/^[A-Za-z0-9_.-]{3,255}$/.test(table)) {
        throw new ConfigurationError(
          `LEDGER_BUCKET_TABLES: bucket "${bucket}" must map to a table name`,
        );
      }
      mapped.set(bucket, table);
    }
    return new BucketTables(defaultTable, mapped);
  }
}
