import type { LedgerRecord, MappingWriteRequest } from '../domain/change.js';
import { type LimitRule, limitsView } from '../domain/limits.js';

export type LimitsResult = ReturnType<typeof limitsView>;

/**
 * PUT /v2/<ledger>/limits: the rules in force from the HEAD version this write commits. They share the v1 mapping's
 * item and version (docs/decisions/ledger.md, "Limits"), so every write decides under exactly the rules in force when it
 * commits: writes committed after it under these, before it under the old ones. The contracts and monitors are kept.
 */
export function updateLimitsWrite(
  ledger: LedgerRecord,
  rules: LimitRule[],
): MappingWriteRequest<LimitsResult> {
  return {
    ledger,
    decide: ({ current }) => ({
      result: limitsView(rules),
      mapping: {
        contracts: current?.contracts ?? [],
        limits: rules,
        ...(current?.monitors ? { monitors: current.monitors } : {}),
      },
    }),
  };
}
