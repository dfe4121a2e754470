import { compilationError } from './errors.js';

/**
 * A request's `vars` as the interpreter takes them (strings). The reference's API accepts, besides strings,
 * JSON numbers (`"n": 42`) and monetaries as objects (`{"asset": "USD/2", "amount": 100}`, the v1 form), and
 * turns them into the text form (`"USD/2 100"`) before running; so does this. Amounts may come as numbers,
 * bigints or numeric strings (a lossless JSON parser's output), so large amounts are not rounded here.
 */
export function varsFromRequest(
  vars: Record<string, unknown> | null | undefined,
): Record<string, string> {
  // Null-prototype: a variable may be named `__proto__` or `constructor`; each stays an ordinary key.
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(vars ?? {})) {
    const text = asText(value);
    if (text !== undefined) {
      out[name] = text;
      continue;
    }
    if (value !== null && typeof value === 'object' && 'asset' in value && 'amount' in value) {
      const { asset, amount } = value as { asset: unknown; amount: unknown };
      const amountText = asText(amount);
      if (typeof asset === 'string' && amountText !== undefined) {
        out[name] = `${asset} ${amountText}`;
        continue;
      }
    }
    throw compilationError(
      'InvalidVariableValue',
      `variable $${name} must be a string, a number or {asset, amount}`,
    );
  }
  return { ...out };
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  // A lossless JSON number (lossless-json's LosslessNumber keeps the digits in `value` and prints them).
  if (value !== null && typeof value === 'object' && 'isLosslessNumber' in value)
    return String(value);
  return undefined;
}
