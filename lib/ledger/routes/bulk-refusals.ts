import { PlatformError } from '../../errors/index.js';
import type { BulkElement } from '../commands/bulk.js';
import type { LedgerRecord } from '../domain/change.js';
import {
  type BulkDeps,
  type BulkOptions,
  type ElementOutcome,
  runBulk,
} from '../write/run-bulk.js';

/** A bulk element ready to run, or refused before running (a schema error of its own, in a non-atomic bulk). */
export type PreparedElement = { element: BulkElement; refusal?: PlatformError };

/**
 * Prepares each element, turning a PlatformError its preparation throws into that element's refusal (the
 * reference reports schema errors per element). Any other error propagates.
 */
export function prepareEach(
  elements: BulkElement[],
  prepare: (element: BulkElement) => BulkElement,
): PreparedElement[] {
  return elements.map((element) => {
    try {
      return { element: prepare(element) };
    } catch (err) {
      if (err instanceof PlatformError) return { element, refusal: err };
      throw err;
    }
  });
}

/**
 * A non-atomic bulk whose elements may be refused up front: a refused element fails as if it had run (nothing of
 * it is written), the others run as in any bulk — after the first failure the rest are not applied, unless
 * `continueOnFailure`. One outcome per element, in order.
 */
export async function runWithRefusals(
  ledger: LedgerRecord,
  prepared: PreparedElement[],
  options: BulkOptions,
  deps: BulkDeps,
): Promise<ElementOutcome[]> {
  const refusedAt = prepared.findIndex((p) => p.refusal !== undefined);
  if (refusedAt === -1)
    return runBulk(
      ledger,
      prepared.map((p) => p.element),
      options,
      deps,
    );
  if (options.continueOnFailure) {
    const runnable = prepared.flatMap((p) => (p.refusal ? [] : [p.element]));
    const ran = runnable.length > 0 ? await runBulk(ledger, runnable, options, deps) : [];
    let next = 0;
    return prepared.map((p) => (p.refusal ? { kind: 'failed', error: p.refusal } : ran[next++]!));
  }
  // Elements before the first refusal run (and may fail first); the refused one and the rest stop there.
  const before = prepared.slice(0, refusedAt).map((p) => p.element);
  const ran = before.length > 0 ? await runBulk(ledger, before, options, deps) : [];
  const failedAt = ran.findIndex((o) => o.kind !== 'applied');
  const stopAt = failedAt === -1 ? refusedAt : failedAt;
  const rest: ElementOutcome[] = prepared
    .slice(refusedAt)
    .map((p, i) =>
      failedAt === -1 && i === 0
        ? { kind: 'failed', error: p.refusal! }
        : { kind: 'not-applied', why: `element ${stopAt} failed` },
    );
  return [...ran, ...rest];
}
