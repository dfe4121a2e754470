import * as v from 'valibot';

/**
 * The key and value schemas of each keyedRecord, by its first pipe item: the transform hides them, and the API
 * documentation (lib/openapi/json-schema.ts) describes the map from them.
 */
const KEYED_RECORDS = new WeakMap<object, { key: v.GenericSchema; value: v.GenericSchema }>();

export function keyedRecordParts(
  schema: unknown,
): { key: v.GenericSchema; value: v.GenericSchema } | undefined {
  return typeof schema === 'object' && schema !== null ? KEYED_RECORDS.get(schema) : undefined;
}

/**
 * A JSON object used as a map whose keys are data (metadata, Numscript vars, account addresses, features).
 *
 * valibot's own `record` skips the keys `__proto__`, `constructor` and `prototype` without an issue (it guards
 * the objects it builds), so a caller's `{"__proto__": 42}` would be silently dropped, its non-string value never
 * checked. Here every own key of the input is validated, key and value, and kept: the output is built with
 * `Object.fromEntries`, which defines own data properties (never the `__proto__` setter), so `__proto__` stays
 * an ordinary key from the request to the store and back. Arrays and null are refused with `message`.
 */
export function keyedRecord<
  TKey extends v.GenericSchema<string, string>,
  TValue extends v.GenericSchema,
>(
  key: TKey,
  value: TValue,
  message: string,
): v.GenericSchema<unknown, Record<v.InferOutput<TKey>, v.InferOutput<TValue>>> {
  const shape = v.custom<Record<string, unknown>>(
    (x) => x !== null && typeof x === 'object' && !Array.isArray(x),
    message,
  );
  KEYED_RECORDS.set(shape, { key, value });
  return v.pipe(
    shape,
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const input = dataset.value;
      const entries: Array<[string, unknown]> = [];
      for (const [entryKey, entryValue] of Object.entries(input)) {
        const keyResult = v.safeParse(key, entryKey, { abortEarly: true });
        const valueResult = keyResult.success
          ? v.safeParse(value, entryValue, { abortEarly: true })
          : undefined;
        const failed = !keyResult.success
          ? keyResult.issues[0]
          : valueResult && !valueResult.success
            ? valueResult.issues[0]
            : undefined;
        if (failed) {
          const here: v.ObjectPathItem = {
            type: 'object',
            origin: keyResult.success ? 'value' : 'key',
            input,
            key: entryKey,
            value: entryValue,
          };
          addIssue({
            message: failed.message,
            path: [here, ...((failed.path ?? []) as v.IssuePathItem[])] as [
              v.IssuePathItem,
              ...v.IssuePathItem[],
            ],
          });
          return NEVER;
        }
        entries.push([keyResult.output as string, (valueResult as { output: unknown }).output]);
      }
      return Object.fromEntries(entries) as Record<v.InferOutput<TKey>, v.InferOutput<TValue>>;
    }),
  ) as unknown as v.GenericSchema<unknown, Record<v.InferOutput<TKey>, v.InferOutput<TValue>>>;
}
