import { describe, expect, it } from 'vitest';
import { SQS_MAX_DELAY_SECONDS, sqsDelaySeconds, sqsHop } from '../store/sqs-delay.js';
import { classifyOutcome } from './response-outcome.js';
import { retryAfterMs } from './retry-after.js';
import {
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  nextAttempt,
  RETRY_DELAYS_MS,
} from './retry-schedule.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const S = 1_000;
const MIN = 60 * S;
const H = 60 * MIN;
const delayAfter = (attempt: number, random: number, retryAfter?: string) => {
  const next = nextAttempt({ attempt, nowMs: NOW, random: () => random, retryAfter });
  return 'atMs' in next ? next.atMs - NOW : next.give;
};

describe('retry schedule', () => {
  it('is immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h — eight attempts', () => {
    expect(MAX_ATTEMPTS).toBe(8);
    expect([1, 2, 3, 4, 5, 6, 7].map((a) => delayAfter(a, 0.5))).toEqual([
      5 * S,
      5 * MIN,
      30 * MIN,
      2 * H,
      5 * H,
      10 * H,
      10 * H,
    ]);
  });

  it('jitters by at most ±20 %', () => {
    RETRY_DELAYS_MS.forEach((base, i) => {
      expect(delayAfter(i + 1, 0)).toBe(Math.round(base * 0.8));
      expect(delayAfter(i + 1, 1)).toBe(Math.round(base * 1.2));
      const any = delayAfter(i + 1, Math.random()) as number;
      expect(any).toBeGreaterThanOrEqual(base * 0.8);
      expect(any).toBeLessThanOrEqual(base * 1.2);
    });
    expect(delayAfter(1, 0)).toBe(4 * S);
    expect(delayAfter(1, 1)).toBe(6 * S);
  });

  it('gives up after the eighth attempt', () => {
    expect(nextAttempt({ attempt: 8, nowMs: NOW })).toEqual({ give: 'failed' });
    expect(nextAttempt({ attempt: 9, nowMs: NOW })).toEqual({ give: 'failed' });
    expect(() => nextAttempt({ attempt: 0, nowMs: NOW })).toThrow(/positive integer/);
  });

  it('honours Retry-After when longer than the scheduled delay, never when shorter', () => {
    expect(delayAfter(1, 0.5, '120')).toBe(120 * S);
    expect(delayAfter(3, 0.5, '120')).toBe(30 * MIN);
    const date = new Date(NOW + 3 * H).toUTCString();
    expect(delayAfter(2, 0.5, date)).toBe(3 * H);
    expect(delayAfter(2, 0.5, new Date(NOW - H).toUTCString())).toBe(5 * MIN);
  });

  it('caps Retry-After at a day and ignores an unreadable one', () => {
    expect(delayAfter(1, 0.5, String(30 * 24 * 3600))).toBe(MAX_RETRY_AFTER_MS);
    expect(delayAfter(1, 0.5, 'soon')).toBe(5 * S);
    expect(delayAfter(1, 0.5, '-5')).toBe(5 * S);
    expect(delayAfter(1, 0.5, '1.5')).toBe(5 * S);
  });

  it('still gives up after the last attempt whatever Retry-After says', () => {
    expect(nextAttempt({ attempt: 8, nowMs: NOW, retryAfter: '5' })).toEqual({ give: 'failed' });
  });
});

describe('Retry-After', () => {
  it('reads delta-seconds and HTTP-dates', () => {
    expect(retryAfterMs('0', NOW)).toBe(0);
    expect(retryAfterMs(' 90 ', NOW)).toBe(90 * S);
    expect(retryAfterMs(new Date(NOW + 42 * S).toUTCString(), NOW)).toBe(42 * S);
    expect(retryAfterMs('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(0);
    expect(retryAfterMs('2026', NOW)).toBe(2026 * S);
    expect(retryAfterMs('2026-11-23', NOW)).toBeUndefined(); // ISO is not an HTTP-date
    expect(retryAfterMs('nonsense', NOW)).toBeUndefined();
  });
});

describe('attempt outcome', () => {
  it('2xx succeeds, 410 deactivates, 3xx and the rest retry', () => {
    expect(classifyOutcome(200)).toEqual({ kind: 'succeeded' });
    expect(classifyOutcome(204)).toEqual({ kind: 'succeeded' });
    expect(classifyOutcome(299)).toEqual({ kind: 'succeeded' });
    expect(classifyOutcome(410)).toEqual({ kind: 'deactivate' });
    expect(classifyOutcome(301)).toEqual({ kind: 'retry', reason: 'redirect' });
    expect(classifyOutcome(302)).toEqual({ kind: 'retry', reason: 'redirect' });
    expect(classifyOutcome(304)).toEqual({ kind: 'retry', reason: 'redirect' });
    for (const status of [100, 400, 404, 429, 500, 503]) {
      expect(classifyOutcome(status)).toEqual({ kind: 'retry', reason: 'status' });
    }
    expect(classifyOutcome(undefined)).toEqual({ kind: 'retry', reason: 'error' });
  });
});

describe('SQS delay splitting', () => {
  it('fits delays up to 900 s in one message, rounding up', () => {
    expect(sqsDelaySeconds(0)).toEqual({ delaySeconds: 0, anotherHop: false });
    expect(sqsDelaySeconds(4_001)).toEqual({ delaySeconds: 5, anotherHop: false });
    expect(sqsDelaySeconds(5 * MIN)).toEqual({ delaySeconds: 300, anotherHop: false });
    expect(sqsDelaySeconds(900 * S)).toEqual({ delaySeconds: 900, anotherHop: false });
    expect(sqsDelaySeconds(-50)).toEqual({ delaySeconds: 0, anotherHop: false });
  });

  it('splits longer delays into hops of at most 900 s', () => {
    expect(sqsDelaySeconds(900 * S + 1)).toEqual({
      delaySeconds: SQS_MAX_DELAY_SECONDS,
      anotherHop: true,
    });
    // 30 min: one 900 s hop, then the remaining 900 s on arrival.
    const at = NOW + 30 * MIN;
    expect(sqsHop(at, NOW)).toEqual({ delaySeconds: 900, anotherHop: true });
    expect(sqsHop(at, NOW + 900 * S)).toEqual({ delaySeconds: 900, anotherHop: false });
    // 10 h takes 40 hops.
    let now = NOW;
    let hops = 0;
    const due = NOW + 10 * H;
    for (;;) {
      const hop = sqsHop(due, now);
      hops++;
      now += hop.delaySeconds * S;
      if (!hop.anotherHop) break;
    }
    expect(hops).toBe(40);
    expect(now).toBe(due);
  });
});
