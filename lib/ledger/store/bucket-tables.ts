/**
 * Which DynamoDB table holds each bucket's ledgers. `LEDGER_BUCKET_TABLES` maps bucket names to tables
 * (`config.ledger.bucketTables`, lib/config/env.ts); every other bucket lives in the default table, so a new
 * bucket just works and a heavy one can move to its own table by configuration.
 */
export class BucketTables {
  constructor(
    readonly defaultTable: string,
    private readonly mapped: ReadonlyMap<string, string> = new Map(),
  ) {}

  tableFor(bucket: string): string {
    return this.mapped.get(bucket) ?? this.defaultTable;
  }

  /** Every ledger table, the default first, each once: what the event dispatcher reads the streams of. */
  all(): string[] {
    return [...new Set([this.defaultTable, ...this.mapped.values()])];
  }
}
