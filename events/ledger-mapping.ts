import * as v from 'valibot';

/**
 * Payload of `ledger.updated_mapping` (docs/api.md §5): the ledger and its new mapping, exactly as PUT answered it.
 * An `expr` is a JSON tree whose integer constants are exact JSON integers (`bigint` when read with
 * `lib/json`); its grammar is checked where mappings are written (lib/ledger/domain/mapping.ts), not here.
 */
export const updatedMappingPayloadSchema = v.strictObject({
  ledger: v.pipe(v.string(), v.minLength(1)),
  mapping: v.strictObject({
    contracts: v.array(
      v.strictObject({
        name: v.optional(v.pipe(v.string(), v.minLength(1))),
        account: v.pipe(v.string(), v.minLength(1)),
        expr: v.record(v.string(), v.unknown()),
      }),
    ),
  }),
});
