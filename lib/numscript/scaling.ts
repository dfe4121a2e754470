import { compilationError } from './errors.js';

/**
 * Asset scaling (`experimental-asset-scaling`): `@acc with scaling through @swap` first converts what the account
 * holds of the same asset at other scales (`EUR`, `EUR/1`, `EUR/3` for a send of `EUR/2`) into the asset sent,
 * through the swap account, then sends from the account as a plain source. The conversion follows the reference
 * interpreter: scales are tried from the finest down, each gives whole units of its own scale only, and a
 * conversion may give back a little more than needed (a whole `EUR` for `EUR/2 1`), never less.
 */

/** An asset's scale: `EUR/2` is `EUR` at scale 2, `EUR` is scale 0. */
export interface ScaledAsset {
  base: string;
  scale: number;
}

/** The asset sent: its scale as written (`EUR/02` is scale 2, as the reference parses it). */
export function scaleOf(asset: string): ScaledAsset {
  const slash = asset.indexOf('/');
  if (slash < 0) return { base: asset, scale: 0 };
  return { base: asset.slice(0, slash), scale: Number(asset.slice(slash + 1)) };
}

/**
 * The scale of an asset the account holds, if it is `base` at some scale written the one way the conversion
 * writes it back (`EUR`, `EUR/3`; never `EUR/0` or `EUR/03`, which would make two assets of one scale).
 */
export function heldScale(asset: string, base: string): number | undefined {
  if (asset === base) return 0;
  if (!asset.startsWith(`${base}/`)) return undefined;
  const digits = asset.slice(base.length + 1);
  return /^[1-9][0-9]*$/.test(digits) ? Number(digits) : undefined;
}

export const scaledAsset = (base: string, scale: number) =>
  scale === 0 ? base : `${base}/${scale}`;

export interface Conversion {
  /** The scale converted from, and how many of its units go to the swap account. */
  scale: number;
  amount: bigint;
}

/**
 * Beyond this many digits of scale difference a conversion would write an amount no ledger takes (amounts have at
 * most 1000 digits); computing its power of ten alone would cost a noticeable time.
 */
const MAX_SCALE_DIFFERENCE = 1000;

const digitCount = (n: bigint) => n.toString().length;

/**
 * The conversions that give at least `needed` units of scale `target` (`null`: everything that converts), from
 * `held` (scale → balance). What the account already holds at the target scale counts first and is never
 * converted; an overdrawn scale holds nothing to convert. Answers the conversions and what they give.
 */
export function findConversions(
  needed: bigint | null,
  target: number,
  held: ReadonlyMap<number, bigint>,
): { conversions: Conversion[]; obtained: bigint } {
  const missing = needed === null ? null : needed - (held.get(target) ?? 0n);
  const conversions: Conversion[] = [];
  let obtained = 0n;
  const scales = [...held.keys()].filter((s) => s !== target).sort((a, b) => b - a);
  for (const scale of scales) {
    if (missing !== null && obtained >= missing) break;
    const balance = held.get(scale)!;
    if (balance <= 0n) continue;
    const conversion = convert(
      balance,
      scale,
      target,
      missing === null ? null : missing - obtained,
    );
    if (!conversion) continue;
    conversions.push({ scale, amount: conversion.units });
    obtained += conversion.gives;
  }
  return { conversions, obtained };
}

/**
 * Converts up to `wanted` units of the target scale (`null`: all) out of `balance` units of `scale`: the whole
 * units of `scale` it takes (rounded up, so the target gets at least `wanted`) and what they give.
 */
function convert(
  balance: bigint,
  scale: number,
  target: number,
  wanted: bigint | null,
): { units: bigint; gives: bigint } | undefined {
  if (scale > target) {
    // Finer units: 10^(scale − target) of them make one target unit.
    if (scale - target > digitCount(balance)) return undefined;
    const factor = 10n ** BigInt(scale - target);
    const available = balance / factor;
    const taken = wanted === null || available < wanted ? available : wanted;
    if (taken === 0n) return undefined;
    return { units: taken * factor, gives: taken };
  }
  if (target - scale > MAX_SCALE_DIFFERENCE) {
    throw compilationError(
      'InvalidPosting',
      `cannot scale from ${scale} to ${target} decimal places: the amount would exceed ${MAX_SCALE_DIFFERENCE} digits`,
    );
  }
  // Coarser units: each gives 10^(target − scale) target units; take whole ones.
  const factor = 10n ** BigInt(target - scale);
  const available = balance * factor;
  const taken = wanted === null || available < wanted ? available : wanted;
  const units = (taken + factor - 1n) / factor;
  return { units, gives: units * factor };
}
