import { describe, expect, it } from 'vitest';
import { lazyLoad } from './lazy-load.js';

describe('lazyLoad', () => {
  it('loads at the first call only, and concurrent first calls share that load', async () => {
    let loads = 0;
    const get = lazyLoad(async () => ({ n: ++loads }));
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([get(), get()]);
    expect(a).toBe(b);
    expect(await get()).toBe(a);
    expect(loads).toBe(1);
  });

  it('forgets a failed load: the next call loads again, and its result is kept', async () => {
    let loads = 0;
    const get = lazyLoad(async () => {
      loads += 1;
      if (loads === 1) throw new Error('passing fault');
      return { n: loads };
    });
    await expect(get()).rejects.toThrow('passing fault');
    const second = await get();
    expect(second).toEqual({ n: 2 });
    expect(await get()).toBe(second);
    expect(loads).toBe(2);
  });
});
