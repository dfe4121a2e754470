import { mappingJson, mappingView, type Mapping } from '../domain/mapping.js';
import { formatInstant } from '../../time/instant.js';
import { mappingItem } from '../store/mapping-item.js';
import type { LedgerRecord } from '../store/registry.js';
import type { HeadWriteRequest } from '../store/writer.js';

export type MappingResult = ReturnType<typeof mappingView>;

/**
 * PUT /<ledger>/mapping as a log-less HEAD write: the mapping item (tagged with the new HEAD version), HEAD
 * naming that version, in one transaction; the item carries the `ledger.updated_mapping` event. Every transaction committed
 * after it decided under the new mapping; every one committed before it, under the old one.
 */
export function updateMappingWrite(ledger: LedgerRecord, mapping: Mapping): HeadWriteRequest<MappingResult> {
  const view = mappingView(mapping);
  return {
    ledger,
    reads: [],
    decide(_snapshot, { version, now, table }) {
      return {
        result: view,
        writes: [{ item: { Put: { TableName: table, Item: mappingItem(ledger.name, version, mappingJson(mapping), formatInstant(now)) } } }],
        head: { mapping },
      };
    },
  };
}
