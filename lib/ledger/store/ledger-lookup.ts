import { LedgerNotFoundError } from '../../errors/index.js';
import { LEDGER_NAME } from '../domain/names.js';
import type { LedgerRecord, LedgerRegistry } from './registry.js';

/**
 * Resolves the ledger of a `/v2/<ledger>/...` request. A ledger's bucket and features never change, so a
 * found ledger is cached for the container's life (ledgers are not deleted); a missing one is asked again
 * next time, so a ledger created by another container is seen at once.
 */
export class LedgerLookup {
  private readonly cache = new Map<string, LedgerRecord>();

  constructor(private readonly registry: LedgerRegistry) {}

  async resolve(name: string): Promise<LedgerRecord> {
    const cached = this.cache.get(name);
    if (cached) return cached;
    // A name that cannot be a ledger is not looked up: nothing hostile reaches a DynamoDB key.
    const record = LEDGER_NAME.test(name) ? await this.registry.get(name) : undefined;
    if (!record) throw new LedgerNotFoundError(`ledger "${name.slice(0, 63)}" not found`);
    this.cache.set(name, record);
    return record;
  }
}
