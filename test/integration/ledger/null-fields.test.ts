/**
 * An optional field sent as `null` is absent (#14: the reference's Go SDK sends `"metadata": null` whenever
 * metadata is unset), through the ledger's HTTP routes as that client sends them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime));
});

describe('null fields', () => {
  it('are absent on ledger creation, transactions, reverts and bulk elements', async () => {
    const ledger = `nulls-${Date.now() % 100000}`;
    expect(
      (await call('POST', `/v2/${ledger}`, '{"bucket":null,"metadata":null,"features":null}'))
        .status,
    ).toBe(204);
    const created = await call(
      'POST',
      `/v2/${ledger}/transactions`,
      '{"postings":[{"source":"world","destination":"a","amount":5,"asset":"USD"}],"metadata":null,"reference":null,"timestamp":null,"accountMetadata":null,"script":null,"force":null}',
    );
    expect(created.status, created.text).toBe(200);
    expect(created.body.data).toMatchObject({ id: 1n, metadata: {}, reverted: false });
    expect(created.body.data).not.toHaveProperty('reference');
    // The same request with the fields left out is the same request: an Idempotency-Key replays across both.
    const withKey = (body: string) =>
      call('POST', `/v2/${ledger}/transactions`, body, { 'Idempotency-Key': 'null-1' });
    const first = await withKey(
      '{"postings":[{"source":"world","destination":"b","amount":1,"asset":"USD"}],"metadata":null}',
    );
    const again = await withKey(
      '{"postings":[{"source":"world","destination":"b","amount":1,"asset":"USD"}]}',
    );
    expect([first.status, again.status, again.headers.get('idempotency-hit')]).toEqual([
      200,
      200,
      'true',
    ]);
    expect(again.body).toEqual(first.body);
    const revert = await call('POST', `/v2/${ledger}/transactions/1/revert`, '{"metadata":null}');
    expect(revert.status, revert.text).toBe(201);
    const bulk = await call(
      'POST',
      `/v2/${ledger}/_bulk`,
      '[{"action":"CREATE_TRANSACTION","ik":null,"data":{"postings":[{"source":"world","destination":"c","amount":2,"asset":"USD"}],"metadata":null,"reference":null}}]',
    );
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.data[0]).toMatchObject({ responseType: 'CREATE_TRANSACTION' });
  });

  it('still refuses a required field sent as null, naming it', async () => {
    const ledger = `nulls-req-${Date.now() % 100000}`;
    expect((await call('POST', `/v2/${ledger}`)).status).toBe(204);
    const res = await call(
      'POST',
      `/v2/${ledger}/transactions`,
      '{"postings":[{"source":null,"destination":"a","amount":5,"asset":"USD"}]}',
    );
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('VALIDATION');
    expect(res.body.errorMessage).toContain('source');
  });
});
