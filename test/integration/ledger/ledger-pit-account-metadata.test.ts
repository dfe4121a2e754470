/**
 * Account metadata written by transactions (`accountMetadata`, a script's set_account_meta) has revisions like
 * metadata written by the metadata routes, so a read at a point in time sees when it changed.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { testTables } from '../../support/tables.js';

let runtime: ServiceRuntime;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
let clock = Date.parse('2026-05-01T10:00:00Z');
const ledger = `pitam-${Date.now() % 100000}`;
const at = (minute: number) => `2026-05-01T10:${String(minute).padStart(2, '0')}:00Z`;

async function write(minute: number, body: unknown) {
  clock = Date.parse(at(minute));
  const res = await call('POST', `/v2/${ledger}/transactions`, body);
  expect(res.status, res.text).toBe(200);
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  ({ call } = await ledgerClient(runtime, { now: () => clock }));
  expect((await call('POST', `/v2/${ledger}`)).status).toBe(204);
  await write(1, {
    postings: [{ source: 'world', destination: 'bob', amount: 1n, asset: 'USD' }],
    accountMetadata: { bob: { tier: 'silver' } },
  });
  await write(2, { postings: [{ source: 'world', destination: 'bob', amount: 1n, asset: 'USD' }] });
  await write(3, {
    script: {
      plain:
        'send [USD 1] (\n  source = @world\n  destination = @bob\n)\nset_account_meta(@bob, "tier", "gold")',
    },
  });
});

describe('account metadata written by transactions', () => {
  it('is read at a point in time as it was then', async () => {
    const bob = async (minute: number) =>
      (await call('GET', `/v2/${ledger}/accounts/bob?pit=${encodeURIComponent(at(minute))}`)).body
        .data.metadata;
    expect(await bob(1)).toEqual({ tier: 'silver' });
    expect(await bob(2)).toEqual({ tier: 'silver' });
    expect(await bob(3)).toEqual({ tier: 'gold' });
  });

  it('writes one revision per change, none for a transaction that leaves it as it was', async () => {
    const { Items = [] } = await runtime.doc.send(
      new QueryCommand({
        TableName: runtime.config.tables.ledger,
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :mh)',
        ExpressionAttributeValues: { ':p': `E#default#L#${ledger}#A#bob`, ':mh': 'MH#' },
      }),
    );
    expect(Items.map((r) => [r.before, r.metadata, r.date])).toEqual([
      [{}, { tier: 'silver' }, '2026-05-01T10:01:00Z'],
      [{ tier: 'silver' }, { tier: 'gold' }, '2026-05-01T10:03:00Z'],
    ]);
  });
});
