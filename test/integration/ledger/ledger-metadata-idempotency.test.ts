/**
 * Idempotency-Key on metadata writes (#14): a replay answers as the first call did, with `Idempotency-Hit: true`,
 * and writes nothing; the same key with another body is refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const ledger = `mdik-${Date.now() % 100000}`;

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
  expect((await call('POST', `/v2/${ledger}`)).status).toBe(204);
  expect(
    (
      await call('POST', `/v2/${ledger}/transactions`, {
        postings: [{ source: 'world', destination: 'a', amount: 1n, asset: 'USD' }],
        metadata: { k: 'v' },
      })
    ).status,
  ).toBe(200);
});

const logCount = async () =>
  (await call('GET', `/v2/${ledger}/logs?pageSize=100`)).body.cursor.data.length as number;

describe('metadata writes with an Idempotency-Key', () => {
  const cases: Array<[string, string, string, unknown, unknown]> = [
    ['save on a transaction', 'POST', '/transactions/1/metadata', { a: '1' }, { a: '2' }],
    ['delete on a transaction', 'DELETE', '/transactions/1/metadata/k', undefined, undefined],
    ['save on an account', 'POST', '/accounts/a/metadata', { b: '1' }, { b: '2' }],
    ['delete on an account', 'DELETE', '/accounts/a/metadata/b', undefined, undefined],
  ];
  for (const [name, method, path, body, otherBody] of cases) {
    it(`${name}: the replay says Idempotency-Hit and writes nothing`, async () => {
      const key = `ik-${name.replace(/\W/g, '-')}`;
      const first = await call(method, `/v2/${ledger}${path}`, body, { 'Idempotency-Key': key });
      expect(first.status, first.text).toBe(204);
      expect(first.headers.get('idempotency-hit')).toBeNull();
      const logs = await logCount();
      const replay = await call(method, `/v2/${ledger}${path}`, body, { 'Idempotency-Key': key });
      expect(replay.status, replay.text).toBe(204);
      expect(replay.headers.get('idempotency-hit')).toBe('true');
      expect(await logCount()).toBe(logs);
      if (otherBody !== undefined) {
        const other = await call(method, `/v2/${ledger}${path}`, otherBody, {
          'Idempotency-Key': key,
        });
        expect(other.status).toBe(400);
        expect(other.body.errorMessage).toBe(
          'Idempotency-Key was already used with a different request',
        );
      }
    });
  }
});
