import type { ItemView } from './change-items.js';

/**
 * Items seen through a base view with changes of its own on top, merged into the base only when asked: a
 * sequenced writer decides each request of a batch on one of these, so a refused request leaves nothing behind,
 * and the batch as a whole reaches its cache only once committed.
 */
export class OverlayView extends Map<string, Record<string, unknown>> {
  private readonly removed = new Set<string>();

  constructor(private base: ItemView) {
    super();
  }

  /**
   * Sees through another base from now on: one holding everything the old one showed (a pipelined batch's
   * view, once the batch under it is committed into the writer's cache).
   */
  rebase(base: ItemView): void {
    this.base = base;
  }

  override get(key: string): Record<string, unknown> | undefined {
    if (super.has(key)) return super.get(key);
    return this.removed.has(key) ? undefined : this.base.get(key);
  }

  override has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  override set(key: string, value: Record<string, unknown>): this {
    this.removed.delete(key);
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    const had = this.has(key);
    super.delete(key);
    this.removed.add(key);
    return had;
  }

  /** Applies this view's changes to its base. */
  mergeIntoBase(): void {
    for (const key of this.removed) this.base.delete(key);
    for (const [key, value] of super.entries()) this.base.set(key, value);
  }
}
