/**
 * The line's choice between pipelined and gathered batches, on a clock the test moves: windows judged on time and
 * answers, the other mode tried every few windows and kept only when it answers sooner by the margin, and how many
 * requests a gather waits for in each mode.
 */
import { describe, expect, it } from 'vitest';
import { BatchPolicy, type BatchPolicyOptions } from './batch-policy.js';

const options: BatchPolicyOptions = { windowMs: 100, minAnswers: 10, exploreEvery: 3, margin: 0.1 };

/** One window of `answers` requests that each waited `waitMs`, answered in two halves 100 ms apart. */
function window(policy: BatchPolicy, at: { ms: number }, waitMs: number, answers = 10): void {
  const first = Math.floor(answers / 2);
  policy.noteAnswered(first, first * waitMs, at.ms);
  at.ms += 100;
  policy.noteAnswered(answers - first, (answers - first) * waitMs, at.ms);
}

describe('BatchPolicy', () => {
  it('pipelines first; a gather then waits for half of the batch that landed', () => {
    const policy = new BatchPolicy(options);
    expect(policy.mode).toBe('pipelined');
    expect(policy.wanted(9, 0)).toBe(5);
    expect(policy.wanted(1, 0)).toBe(1);
  });

  it('tries the other mode after the first two windows, and keeps it when it answers sooner by the margin', () => {
    const policy = new BatchPolicy(options);
    const at = { ms: 0 };
    window(policy, at, 30);
    expect(policy.mode).toBe('pipelined');
    window(policy, at, 30);
    expect(policy.mode).toBe('gathered');
    window(policy, at, 26.9);
    expect(policy.mode).toBe('gathered');
    // Kept: the next try of pipelining comes after `exploreEvery` windows gathered.
    for (let k = 0; k < 3; k++) {
      expect(policy.mode).toBe('gathered');
      window(policy, at, 20);
    }
    expect(policy.mode).toBe('pipelined');
    window(policy, at, 19);
    expect(policy.mode).toBe('gathered');
  });

  it('goes back when the tried mode is not sooner by the margin, and tries again `exploreEvery` windows later', () => {
    const policy = new BatchPolicy(options);
    const at = { ms: 0 };
    window(policy, at, 30);
    window(policy, at, 30);
    expect(policy.mode).toBe('gathered');
    window(policy, at, 27.1);
    const modes: string[] = [];
    for (let k = 0; k < 4; k++) {
      modes.push(policy.mode);
      window(policy, at, 30);
    }
    expect(modes).toEqual(['pipelined', 'pipelined', 'pipelined', 'gathered']);
  });

  it('judges a window only once it has lasted windowMs and holds minAnswers', () => {
    const policy = new BatchPolicy(options);
    // Two windows' worth of time with too few answers, then answers in too short a time: still the first window.
    policy.noteAnswered(4, 40, 0);
    policy.noteAnswered(4, 40, 250);
    policy.noteAnswered(5, 50, 251);
    policy.noteAnswered(5, 50, 260);
    // The second window opens at 251 and closes at 351: only then is the other mode tried.
    policy.noteAnswered(10, 100, 350);
    expect(policy.mode).toBe('pipelined');
    policy.noteAnswered(1, 10, 351);
    expect(policy.mode).toBe('gathered');
  });

  it('gathered: waits for as many as the line held at once in the last peakMs, at least the landed batch', () => {
    const policy = new BatchPolicy({
      ...options,
      adaptive: false,
      start: 'gathered',
      peakMs: 1_000,
    });
    policy.noteHeld(8, 0);
    policy.noteHeld(5, 500);
    expect(policy.wanted(5, 600)).toBe(8);
    expect(policy.wanted(12, 600)).toBe(12);
    // The peak of 8 is over a second old: the next landing's count is the peak.
    policy.noteHeld(3, 1_001);
    expect(policy.wanted(3, 1_100)).toBe(3);
    expect(policy.wanted(2, 2_200)).toBe(2);
  });

  it('not adaptive: keeps its mode whatever it measures', () => {
    const policy = new BatchPolicy({ ...options, adaptive: false });
    const at = { ms: 0 };
    for (let k = 0; k < 10; k++) window(policy, at, 30 - 2 * k);
    expect(policy.mode).toBe('pipelined');
  });
});
