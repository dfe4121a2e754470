import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as operations from '@formance/formance-sdk/sdk/models/operations/index.js';

/**
 * The SDK's zod (v3) schemas resolve any body their types accept and drop the fields they do not declare, so an
 * answer with the wrong field names "succeeds" with those fields missing (`listClients` answering `{cursor}` where
 * the SDK reads `{data}` gave `{}`). This module finds, for one operation and status, the body schema the SDK
 * parses with, and walks it beside the body the platform sent: every field the schema does not declare is a
 * shape difference. Type differences the SDK reports itself (it throws).
 */

/** The parts of a zod v3 schema the walk reads (its `_def`). */
interface ZodDef {
  typeName?: string;
  shape?: () => Record<string, ZodLike>;
  unknownKeys?: string;
  catchall?: ZodLike;
  innerType?: ZodLike;
  schema?: ZodLike;
  type?: ZodLike;
  valueType?: ZodLike;
  options?: ZodLike[] | Map<unknown, ZodLike>;
  getter?: () => ZodLike;
  left?: ZodLike;
  right?: ZodLike;
  in?: ZodLike;
  items?: ZodLike[];
}
export interface ZodLike {
  _def: ZodDef;
  safeParse(value: unknown): { success: boolean };
}

const requireFromHere = createRequire(import.meta.url);
const ENVELOPE = new Set(['ContentType', 'StatusCode', 'RawResponse', 'Headers']);

/** The SDK's function file for an operation: `auth.v1` + `listClients` → `authV1ListClients`; the root's as is. */
function funcName(service: string, op: string): string {
  if (service === 'sdk') return op;
  const [group, version] = service.split('.') as [string, string];
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  return `${group}${cap(version)}${cap(op)}`;
}

function statusMatches(declared: string, status: number): boolean {
  if (/^\d+$/.test(declared)) return Number(declared) === status;
  const range = /^"(\d)XX"$/.exec(declared);
  return range !== null && Math.floor(status / 100) === Number(range[1]);
}

/**
 * The schema the SDK parses an operation's JSON body with at `status`, or undefined when it reads no JSON body
 * there. Read from the SDK's own generated function, which names the operation schema and the body's key in it.
 */
export function sdkBodySchema(service: string, op: string, status: number): ZodLike | undefined {
  let source: string;
  try {
    const file = requireFromHere.resolve(
      `@formance/formance-sdk/funcs/${funcName(service, op)}.js`,
    );
    source = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const matcher = /M\.json\(([^,]+), operations\.(\w+)\$inboundSchema, \{\s*key: "(\w+)"/g;
  for (const [, declared, name, key] of source.matchAll(matcher)) {
    if (!statusMatches(declared!.trim(), status)) continue;
    const schema = (operations as unknown as Record<string, ZodLike | undefined>)[
      `${name}$inboundSchema`
    ];
    const object = schema && unwrap(schema);
    const field = object?._def.shape?.()[key!];
    if (field && !ENVELOPE.has(key!)) return field;
  }
  return undefined;
}

/** Through the wrappers that do not change which fields an object declares. */
function unwrap(schema: ZodLike): ZodLike {
  let s = schema;
  for (;;) {
    const d = s._def;
    const next =
      d.typeName === 'ZodEffects'
        ? d.schema
        : d.typeName === 'ZodLazy'
          ? d.getter?.()
          : d.typeName === 'ZodPipeline'
            ? d.in
            : d.typeName === 'ZodBranded'
              ? d.type
              : ['ZodOptional', 'ZodNullable', 'ZodDefault', 'ZodCatch', 'ZodReadonly'].includes(
                    d.typeName ?? '',
                  )
                ? d.innerType
                : undefined;
    if (!next) return s;
    s = next;
  }
}

/**
 * The fields of `value` that `schema` does not declare, as paths (`cursor`, `data[].secrets[].clear`). Records
 * (metadata maps) take any key; in a union, the option that accepts the value with the fewest unknown fields.
 */
export function unknownFields(schema: ZodLike, value: unknown, path = ''): string[] {
  const s = unwrap(schema);
  const d = s._def;
  if (value === null || value === undefined) return [];
  switch (d.typeName) {
    case 'ZodObject':
      return objectFields(s, value, path);
    case 'ZodArray':
      return Array.isArray(value)
        ? dedupe(value.flatMap((v) => unknownFields(d.type!, v, `${path}[]`)))
        : [];
    case 'ZodRecord':
      return isPlainObject(value)
        ? dedupe(Object.values(value).flatMap((v) => unknownFields(d.valueType!, v, `${path}{}`)))
        : [];
    case 'ZodTuple':
      return Array.isArray(value)
        ? dedupe((d.items ?? []).flatMap((item, i) => unknownFields(item, value[i], `${path}[]`)))
        : [];
    case 'ZodIntersection': {
      const left = unknownFields(d.left!, value, path);
      const right = new Set(unknownFields(d.right!, value, path));
      return left.filter((f) => right.has(f));
    }
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion':
      return unionFields(s, value, path);
    default:
      return [];
  }
}

function objectFields(s: ZodLike, value: unknown, path: string): string[] {
  if (!isPlainObject(value)) return [];
  const shape = s._def.shape?.() ?? {};
  // An object the SDK declares without a single field is an OpenAPI `type: object` with no properties: free-form
  // (a connector's config, "whose shape depends on the provider"), so any field in it is declared.
  const open =
    Object.keys(shape).length === 0 ||
    s._def.unknownKeys === 'passthrough' ||
    (s._def.catchall !== undefined && s._def.catchall._def.typeName !== 'ZodNever');
  const out: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const field = shape[key];
    const at = path ? `${path}.${key}` : key;
    if (field) out.push(...unknownFields(field, v, at));
    else if (!open) out.push(at);
  }
  return out;
}

function unionFields(s: ZodLike, value: unknown, path: string): string[] {
  const all = [...(s._def.options?.values() ?? [])];
  const accepting = all.filter((o) => o.safeParse(value).success);
  const candidates = accepting.length ? accepting : all;
  let best: string[] | undefined;
  for (const option of candidates) {
    const found = unknownFields(option, value, path);
    if (!best || found.length < best.length) best = found;
  }
  return best ?? [];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function dedupe(paths: string[]): string[] {
  return [...new Set(paths)];
}
