import type { Context } from 'hono';
import type { HonoTypes } from '../../http/types.js';

/** A request's handlers, from its environment's stores (`handlersPerScope`). */
export type HandlersOf<H> = (c: Context<HonoTypes>) => Promise<H>;

/**
 * Handlers built once per environment's stores (`depsOf(c)`: the request's scope, the same object for every
 * request of an environment while the scope is kept), from a module loaded at the first such request. A build that
 * fails is forgotten, so the next request tries again (as `lazyLoad`).
 */
export function handlersPerScope<D extends object, H>(
  depsOf: (c: Context<HonoTypes>) => D,
  build: (deps: D) => Promise<H>,
): HandlersOf<H> {
  const built = new WeakMap<D, Promise<H>>();
  return (c) => {
    const deps = depsOf(c);
    let handlers = built.get(deps);
    if (!handlers) {
      const attempt = build(deps);
      handlers = attempt;
      built.set(deps, attempt);
      attempt.catch(() => {
        if (built.get(deps) === attempt) built.delete(deps);
      });
    }
    return handlers;
  };
}
