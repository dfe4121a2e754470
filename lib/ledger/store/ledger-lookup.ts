import { LedgerNotFoundError } from '../../errors/index.js';
import { LEDGER_NAME } from '../domain/names.js';
import type { LedgerRecord, LedgerRegistry } from './registry.js';

/** How long a container serves a ledger from its cache: a bucket deletion is seen within it. */
export const LEDGER_RECHECK_MS = 5_000;

/**
 * Resolves the ledger of a `/v2/<ledger>/...` request in the request's environment (its token's: ledger names
 * are per environment). A ledger's bucket and features never change; whether its bucket is deleted does, so a
 * found ledger is cached for LEDGER_RECHECK_MS (one GetItem per ledger per container that often); a missing one
 * is asked again next time, so a ledger created elsewhere is seen at once.
 */
export class LedgerLookup {
  private readonly cache = new Map<string, { record: LedgerRecord; untilMs: number }>();

  constructor(
    private readonly registry: LedgerRegistry,
    private readonly now: () => number = Date.now,
  ) {}

  async resolve(environment: string, name: string): Promise<LedgerRecord> {
    // `\u0000` is in neither an environment id nor a ledger name: no two pairs share a cache key.
    const key = `${environment}\u0000${name}`;
    const cached = this.cache.get(key);
    if (cached && cached.untilMs > this.now()) return cached.record;
    // A name that cannot be a ledger is not looked up: nothing hostile reaches a DynamoDB key.
    const record = LEDGER_NAME.test(name)
      ? await this.registry.get({ environment, name })
      : undefined;
    if (!record || record.deletedAt !== undefined) {
      this.cache.delete(key);
      throw new LedgerNotFoundError(`ledger "${name.slice(0, 63)}" not found`);
    }
    this.cache.set(key, { record, untilMs: this.now() + LEDGER_RECHECK_MS });
    return record;
  }

  /** After this container deleted or restored a bucket of an environment: its ledgers are read again at once. */
  forgetBucket(environment: string, bucket: string): void {
    for (const [key, { record }] of this.cache)
      if (record.environment === environment && record.bucket === bucket) this.cache.delete(key);
  }
}
