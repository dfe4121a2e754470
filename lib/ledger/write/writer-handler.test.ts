import { describe, expect, it } from 'vitest';
import { receivesAfter } from './writer-handler.js';

describe('the writer drain: receives per round', () => {
  it('asks with two receives while rounds are small, and one more for every ten messages the last round took, up to six', () => {
    expect([0, 1, 9, 10, 19, 20, 35, 40, 59, 60, 200].map(receivesAfter)).toEqual([
      2, 2, 2, 3, 3, 4, 5, 6, 6, 6, 6,
    ]);
  });
});
