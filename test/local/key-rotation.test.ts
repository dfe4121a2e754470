import { describe, expect, it } from 'vitest';
import { startKeyRotation } from '../../infra/local/key-rotation.js';
import { KeyStore } from '../../lib/auth/store/key-store.js';
import { testTables } from '../support/tables.js';
import { WAIT_LIMIT_MS } from '../support/time-scale.js';

describe('local key rotation timer', () => {
  it('runs the rotation step on its interval, logs each result, and stops cleanly', async () => {
    const { runtime } = await testTables();
    const store = new KeyStore(runtime.doc, runtime.config.tables.auth);
    const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
    const stop = startKeyRotation({
      store,
      intervalMs: 50,
      minNextAgeSeconds: 0,
      logger: {
        log: (level, message, fields) =>
          lines.push({ level, message, ...(fields ? { fields } : {}) }),
      },
    });
    // First step bootstraps current + next; with no minimum age, the next steps promote.
    await expect
      .poll(
        () =>
          lines.filter(
            (l) => (l.fields?.decision as { action?: string } | undefined)?.action === 'promote',
          ).length,
        { timeout: WAIT_LIMIT_MS },
      )
      .toBeGreaterThan(0);
    await stop();
    const count = lines.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(lines.length).toBe(count);
    expect(lines.every((l) => l.level === 'info' && l.message === 'key rotation')).toBe(true);
    expect((lines[0]!.fields!.decision as { action: string }).action).toBe('add-next');
    const set = await store.readSet();
    expect(set?.keys.map((k) => k.status).sort()).toEqual(['current', 'next', 'previous']);
  });
});
