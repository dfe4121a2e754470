import { describe, expect, it } from 'vitest';
import type { WebhookConfig } from './config.js';
import {
  activated,
  afterDelivered,
  afterFailed,
  afterGone,
  healthEvents,
} from './endpoint-health.js';

const config: WebhookConfig = {
  id: 'c1',
  name: 'shop',
  endpoint: 'https://example.com/hook',
  eventTypes: ['ledger.committed_transactions'],
  secret: 'whsec_x',
  active: true,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
};
const HOUR_MS = 3_600_000;
const T0 = Date.parse('2026-11-02T00:00:00.000Z');
const at = (ms: number) => ({ ms, instant: new Date(ms).toISOString() });

describe('endpoint health', () => {
  it('a first failure opens the run; failures inside the period change nothing more', () => {
    const failing = afterFailed(config, at(T0), 5 * HOUR_MS);
    expect(failing).toEqual({ ...config, failingSince: '2026-11-02T00:00:00.000Z' });
    expect(afterFailed(failing, at(T0 + 5 * HOUR_MS - 1), 5 * HOUR_MS)).toEqual(failing);
  });

  it('a failure once the run has lasted the period switches the config off, and says so once', () => {
    const failing = afterFailed(config, at(T0), 5 * HOUR_MS);
    const off = afterFailed(failing, at(T0 + 5 * HOUR_MS), 5 * HOUR_MS);
    expect(off).toEqual({
      ...config,
      active: false,
      failingSince: '2026-11-02T00:00:00.000Z',
      disabledAt: '2026-11-02T05:00:00.000Z',
      disabledReason: 'failing',
    });
    expect(healthEvents('default', failing, off, { statusCode: 503 })).toEqual([
      {
        type: 'webhooks.endpoint_disabled',
        seed: 'webhooks/default/c1/disabled/2026-11-02T05:00:00.000Z',
        date: '2026-11-02T05:00:00.000Z',
        payload: {
          configID: 'c1',
          name: 'shop',
          endpoint: 'https://example.com/hook',
          reason: 'failing',
          failingSince: '2026-11-02T00:00:00.000Z',
          disabledAt: '2026-11-02T05:00:00.000Z',
          lastStatusCode: 503,
        },
      },
    ]);
    // Already off: a late failure of another delivery changes nothing and emits nothing.
    expect(afterFailed(off, at(T0 + 6 * HOUR_MS), 5 * HOUR_MS)).toBe(off);
    expect(healthEvents('default', off, off, { statusCode: 503 })).toEqual([]);
  });

  it('a period of 0 never switches off', () => {
    const failing = afterFailed(config, at(T0), 0);
    expect(afterFailed(failing, at(T0 + 1000 * HOUR_MS), 0)).toEqual(failing);
  });

  it('410 Gone switches off at once, with its reason and the error of the last attempt', () => {
    const off = afterGone(config, '2026-11-02T01:00:00.000Z');
    expect(off).toMatchObject({ active: false, disabledReason: 'gone' });
    expect(healthEvents('e1', config, off, { statusCode: 410 })[0]?.payload).toMatchObject({
      reason: 'gone',
      failingSince: '2026-11-02T01:00:00.000Z',
      lastStatusCode: 410,
    });
    const timedOut = afterGone(config, '2026-11-02T01:00:00.000Z');
    expect(
      healthEvents('e1', config, timedOut, { statusCode: 0, error: 'timeout' })[0]?.payload,
    ).toMatchObject({ lastStatusCode: 0, lastError: 'timeout' });
  });

  it('a delivery ends the run; after a reactivation it is the recovery, told once', () => {
    const failing = afterFailed(config, at(T0), 5 * HOUR_MS);
    expect(afterDelivered(failing)).toEqual(config);
    expect(healthEvents('default', failing, afterDelivered(failing), { statusCode: 200 })).toEqual(
      [],
    );

    const off = afterFailed(failing, at(T0 + 5 * HOUR_MS), 5 * HOUR_MS);
    const back = activated(off);
    // A fresh period: the run of failures starts again from the next failure.
    expect(back).toEqual({
      ...config,
      disabledAt: '2026-11-02T05:00:00.000Z',
      disabledReason: 'failing',
    });
    expect(afterFailed(back, at(T0 + 6 * HOUR_MS), 5 * HOUR_MS).active).toBe(true);
    const recovered = { ...afterDelivered(back), updatedAt: '2026-11-02T07:00:00.000Z' };
    expect(recovered).toEqual({ ...config, updatedAt: '2026-11-02T07:00:00.000Z' });
    expect(healthEvents('default', back, recovered, { statusCode: 200 })).toEqual([
      {
        type: 'webhooks.endpoint_recovered',
        seed: 'webhooks/default/c1/recovered/2026-11-02T05:00:00.000Z',
        date: '2026-11-02T07:00:00.000Z',
        payload: {
          configID: 'c1',
          name: 'shop',
          endpoint: 'https://example.com/hook',
          disabledAt: '2026-11-02T05:00:00.000Z',
          recoveredAt: '2026-11-02T07:00:00.000Z',
        },
      },
    ]);
  });
});
