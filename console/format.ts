/**
 * Display helpers that never change a value: amounts stay the API's integers (bigint, or the digits as text), and
 * JSON is re-indented as text, so a number beyond 2^53 is never read into a double.
 */

/**
 * An amount in minor units written as a decimal of its asset's precision (`USD/2`, 2500 → `25.00`), by moving the
 * decimal point in the digits; undefined when the asset names no precision (`EUR`, `COIN`).
 */
export function decimalAmount(value: unknown, asset: string | undefined): string | undefined {
  const precision = /\/(\d{1,2})$/.exec(asset ?? '')?.[1];
  const digits = String(value);
  if (precision === undefined || !/^-?\d+$/.test(digits)) return undefined;
  const places = Number(precision);
  const negative = digits.startsWith('-');
  const magnitude = (negative ? digits.slice(1) : digits).padStart(places + 1, '0');
  const whole = magnitude.slice(0, magnitude.length - places);
  const fraction = magnitude.slice(magnitude.length - places);
  return `${negative ? '-' : ''}${whole}${places > 0 ? `.${fraction}` : ''}`;
}

/** The asset's code without its precision: `USD/2` → `USD`. */
export const assetCode = (asset: string): string => asset.replace(/\/\d+$/, '');

/**
 * JSON text re-indented by two spaces per level, characters inside strings untouched; text that is not JSON is
 * returned as it is (a receiver may be shown any payload).
 */
export function prettyJson(text: string): string {
  try {
    JSON.parse(text);
  } catch {
    return text;
  }
  let out = '';
  let depth = 0;
  let inString = false;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') continue;
    if (ch === '"') inString = true;
    if ((ch === '}' || ch === ']') && /[{[]$/.test(out)) {
      depth--;
      out += ch;
    } else if (ch === '{' || ch === '[') {
      depth++;
      out += text.slice(i + 1).trimStart()[0] === (ch === '{' ? '}' : ']') ? ch : ch + newline();
    } else if (ch === '}' || ch === ']') {
      depth--;
      out += newline() + ch;
    } else if (ch === ',') out += `,${newline()}`;
    else if (ch === ':') out += ': ';
    else out += ch;
  }
  return out;
}
