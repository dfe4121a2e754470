/**
 * `load` run at the first call and its result kept for every later one; concurrent first calls share one load. A
 * load that fails is forgotten, so the next call tries again: a container whose first attempt met a passing fault
 * (a file read, a client that would not build) is not left failing until it is recycled.
 *
 * For what a function loads at its first use with `import()` (a chunk of its split bundle, infra/bundling.ts): no
 * static import of that module may stay beside the dynamic one, or the bundle loads it at start-up again.
 */
export function lazyLoad<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    if (!loaded) {
      const attempt = load();
      loaded = attempt;
      attempt.catch(() => {
        if (loaded === attempt) loaded = undefined;
      });
    }
    return loaded;
  };
}
