/**
 * JSON as Go's encoding/json writes it, for recomputing the reference platform's log hashes byte for byte: struct
 * fields in declaration order, map keys sorted by their UTF-8 bytes, `<`, `>`, `&`, U+2028 and U+2029 escaped,
 * big integers as bare numbers, no spaces. Only what the reference's log payloads hold is supported.
 */
export type GoValue = string | bigint | boolean | null | GoValue[] | GoStruct | GoMap;

/** A Go struct: fields in the order the struct declares them. */
export class GoStruct {
  constructor(readonly fields: ReadonlyArray<readonly [string, GoValue]>) {}
}

/** A Go map (nil when `entries` is null): encoded with its keys sorted. */
export class GoMap {
  constructor(readonly entries: Readonly<Record<string, GoValue>> | null) {}
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  // Go 1.22 and later write these two short forms (before, \u0008 and \u000c).
  '\b': '\\b',
  '\f': '\\f',
};

export function goString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (
      code < 0x20 ||
      ch === '<' ||
      ch === '>' ||
      ch === '&' ||
      code === 0x2028 ||
      code === 0x2029
    )
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

export function goJson(value: GoValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (value instanceof GoStruct)
    return `{${value.fields.map(([k, v]) => `${goString(k)}:${goJson(v)}`).join(',')}}`;
  if (value.entries === null) return 'null';
  const entries = value.entries;
  const keys = Object.keys(entries).sort(byUtf8);
  return `{${keys.map((k) => `${goString(k)}:${goJson(entries[k]!)}`).join(',')}}`;
}
