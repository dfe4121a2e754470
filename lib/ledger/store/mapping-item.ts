import { parseJson } from '../../json/bigint-json.js';
import { type LimitRule, limitRuleProblem } from '../domain/limits.js';
import { type Mapping, parseMapping } from '../domain/mapping.js';
import { monitorsFromStored } from '../domain/monitors.js';
import { type LedgerRef, ledgerKeys } from './keys.js';
import type { LedgerTable } from './ledger-table.js';
import { EVENT_ATTRIBUTE } from './log-pages.js';

/**
 * The mapping item (docs/data-model.md): `E#<environment>#L#<ledger>` / `MAPPING`, holding the ledger's contracts as
 * exact JSON text and the HEAD version at which they were written. HEAD names that version (`mappingVersion`), and
 * every write is conditional on HEAD's version: so the mapping a write decided under is the mapping in force when it
 * commits, without re-reading the (up to 64 KB) mapping on every write or putting it on HEAD, whose size every write
 * pays for.
 */
export const mappingKey = (ledger: LedgerRef) => ledgerKeys.mapping(ledger);

/**
 * The item also carries the `ledger.updated_mapping` event of its version (lib/ledger/store/log-events.ts):
 * `date` is the event's, and `ev` marks it for the table's stream (the mapping itself is all the event needs).
 */
export function mappingItem(
  ledger: LedgerRef,
  version: number,
  json: string,
  date: string,
): Record<string, unknown> {
  return { ...mappingKey(ledger), version, mapping: json, date, [EVENT_ATTRIBUTE]: '{}' };
}

/** A stored mapping's text, parsed back (it was validated when written). */
export function parseStoredMapping(json: string): Mapping {
  const { limits, monitors, ...contracts } = parseJson(json) as Record<string, unknown>;
  return {
    ...parseMapping(contracts),
    ...(limits === undefined ? {} : { limits: parseStoredLimits(limits) }),
    ...(monitors === undefined ? {} : { monitors: monitorsFromStored(monitors) }),
  };
}

/**
 * The rules as the item stores them (limitsView's, validated when written; integers exact from lib/json), read back
 * without the request schema: only the fields set, each rule still meaning what the domain says it must.
 */
export function parseStoredLimits(stored: unknown): LimitRule[] {
  if (!Array.isArray(stored)) throw new Error('stored limits are not a list');
  return stored.map((raw: Record<string, unknown>, index) => {
    const rule: LimitRule = {
      account: String(raw.account),
      ...(raw.asset !== undefined ? { asset: String(raw.asset) } : {}),
      ...(raw.min !== undefined ? { min: BigInt(raw.min as bigint) } : {}),
      ...(raw.max !== undefined ? { max: BigInt(raw.max as bigint) } : {}),
      ...flag(raw, 'debitsMustNotExceedCredits'),
      ...flag(raw, 'creditsMustNotExceedDebits'),
      ...flag(raw, 'forceAllowed'),
    };
    const problem = limitRuleProblem(rule);
    if (problem) throw new Error(`stored limits rule ${index}: ${problem}`);
    return rule;
  });
}

const flag = <
  K extends 'debitsMustNotExceedCredits' | 'creditsMustNotExceedDebits' | 'forceAllowed',
>(
  raw: Record<string, unknown>,
  name: K,
): Partial<Record<K, boolean>> =>
  raw[name] === undefined ? {} : ({ [name]: raw[name] === true } as Partial<Record<K, boolean>>);

/**
 * Mappings by (ledger, version), per container. A version's mapping never changes (a replacement gets a new
 * HEAD version), so a cached entry is never stale: it is simply not the one HEAD names any more.
 */
export class MappingCache {
  private readonly byLedger = new Map<string, { version: number; mapping: Mapping }>();

  /**
   * The mapping of `version`, read through the ledger's port when not cached, or `stale` when the item already
   * holds a newer one (the caller re-reads HEAD).
   */
  async load(
    port: LedgerTable,
    table: string,
    ledger: LedgerRef,
    version: number,
  ): Promise<Mapping | 'stale'> {
    const cached = this.byLedger.get(cacheKey(table, ledger));
    if (cached?.version === version) return cached.mapping;
    const [Item] = await port.getItems([mappingKey(ledger)]);
    if (!Item || Number(Item.version) !== version) return 'stale';
    const mapping = parseStoredMapping(String(Item.mapping));
    this.remember(table, ledger, version, mapping);
    return mapping;
  }

  remember(table: string, ledger: LedgerRef, version: number, mapping: Mapping): void {
    if (this.byLedger.size > 1000) this.byLedger.clear();
    this.byLedger.set(cacheKey(table, ledger), { version, mapping });
  }
}

const cacheKey = (table: string, ledger: LedgerRef) =>
  `${table}\u0000${ledger.environment}\u0000${ledger.name}`;
