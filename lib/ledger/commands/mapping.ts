import type { LedgerRecord, MappingWriteRequest } from '../domain/change.js';
import { type Mapping, mappingView } from '../domain/mapping.js';

export type MappingResult = ReturnType<typeof mappingView>;

/**
 * PUT /<ledger>/mapping: the mapping in force from the HEAD version this write commits (its item carries the
 * `ledger.updated_mapping` event). Every transaction committed after it decided under the new mapping; every one
 * committed before it, under the old one.
 */
export function updateMappingWrite(
  ledger: LedgerRecord,
  mapping: Mapping,
): MappingWriteRequest<MappingResult> {
  const view = mappingView(mapping);
  return {
    ledger,
    // The limits and monitors live in the same item: replacing the contracts keeps them.
    decide: ({ current }) => ({
      result: view,
      mapping: {
        ...mapping,
        ...(current?.limits ? { limits: current.limits } : {}),
        ...(current?.monitors ? { monitors: current.monitors } : {}),
      },
    }),
  };
}
