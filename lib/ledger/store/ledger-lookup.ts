import { LedgerNotFoundError } from '../../errors/index.js';
import { LEDGER_NAME } from '../domain/names.js';
import type { LedgerRecord, LedgerRegistry } from './registry.js';

/** How long a container serves a ledger from its cache: a bucket deletion is seen within it. */
export const LEDGER_RECHECK_MS = 5_000;

/**
 * Resolves the ledger of a `/v2/<ledger>/...` request. A ledger's bucket and features never change; whether its
 * bucket is deleted does, so a found ledger is cached for LEDGER_RECHECK_MS (one GetItem per ledger per
 * container that often); a missing one is asked again next time, so a ledger created elsewhere is seen at once.
 */
export class LedgerLookup {
  private readonly cache = new Map<string, { record: LedgerRecord; until: number }>();

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly now: () => number = Date.now,
  ) {}

  async resolve(name: string): Promise<LedgerRecord> {
    const cached = this.cache.get(name);
    if (cached && cached.until > this.now()) return cached.record;
    // A name that cannot be a ledger is not looked up: nothing hostile reaches a DynamoDB key.
    const record = LEDGER_NAME.test(name) ? await this.registry.get(name) : undefined;
    if (!record || record.deletedAt !== undefined) {
      this.cache.delete(name);
      throw new LedgerNotFoundError(`ledger "${name.slice(0, 63)}" not found`);
    }
    this.cache.set(name, { record, until: this.now() + LEDGER_RECHECK_MS });
    return record;
  }

  /** After this container deleted or restored a bucket: its ledgers are read again at once. */
  forgetBucket(bucket: string): void {
    for (const [name, { record }] of this.cache)
      if (record.bucket === bucket) this.cache.delete(name);
  }
}
