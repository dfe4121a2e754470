/**
 * The ledger's events read back from its own items (lib/ledger/store/log-events.ts). Every expected envelope is
 * written out as text: ids are SHA-256 of the seeds the ledger always used, and payloads are those the ledger's
 * commands emitted as events-table rows before events moved to the log items, key for key and byte for byte.
 */
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { envelopeSchema } from '../../../events/catalog.js';
import { updatedMappingPayloadSchema } from '../../../events/ledger-mapping.js';
import { MalformedEventError } from '../../events/malformed-event.js';
import { parseJson } from '../../json/bigint-json.js';
import { ledgerEventsOfImage } from './log-events.js';

const sha = (seed: string) => createHash('sha256').update(seed).digest('hex').slice(0, 32);
const T1 = '2026-01-02T03:04:05.000Z';
const T2 = '2026-01-03T00:00:00.500Z';
const BIG = '123456789012345678901234567890';

/** A log item exactly as the writer puts it: the entry as text, and the extras its event needs. */
const logItem = (
  ledger: string,
  id: number,
  type: string,
  data: string,
  ev: string,
  idempotencyKey = '',
  environment = 'default',
) => ({
  pk: `E#${environment}#L#${ledger}#LOG`,
  sk: String(id).padStart(15, '0'),
  id,
  type,
  date: T2,
  body: `{"id":${id},"type":"${type}","data":${data},"date":"${T2}","idempotencyKey":"${idempotencyKey}","hash":"aGFzaA=="}`,
  ev,
});

const envelope = (id: string, type: string, payload: string, idempotencyKey = '') =>
  `{"id":"${id}","idempotency_key":"${idempotencyKey}","date":"${T2}","app":"ledger","version":"v2","type":"${type}","payload":${payload}}`;

const tx1 = `{"id":7,"postings":[{"source":"world","destination":"users:1","amount":${BIG},"asset":"USD/2"}],"metadata":{"order":"o-1"},"timestamp":"${T1}","insertedAt":"${T2}","updatedAt":"${T2}","reference":"ref-1","reverted":false}`;
const post1 = `{"world":{"USD/2":{"input":0,"output":${BIG},"balance":-${BIG}}},"users:1":{"USD/2":{"input":${BIG},"output":0,"balance":${BIG}}}}`;

describe('ledgerEventsOfImage', () => {
  it('NEW_TRANSACTION: ledger.committed_transactions with the logged transaction and its post-commit volumes', () => {
    const item = logItem(
      'main',
      12,
      'NEW_TRANSACTION',
      `{"transaction":${tx1},"accountMetadata":{"users:1":{"tier":"gold"}}}`,
      `{"post":${post1}}`,
      'ik-1',
    );
    const id = sha('ledger/main/12');
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(ledgerEventsOfImage(item)).toEqual([
      {
        id,
        type: 'ledger.committed_transactions',
        body: envelope(
          id,
          'ledger.committed_transactions',
          `{"ledger":"main","transactions":[${tx1.slice(0, -1)},"postCommitVolumes":${post1}}],"accountMetadata":{"users:1":{"tier":"gold"}}}`,
          'ik-1',
        ),
      },
    ]);
  });

  it('REVERTED_TRANSACTION: both transactions with post- and pre-commit volumes', () => {
    const reverted = `{"id":1,"postings":[{"source":"world","destination":"users:1","amount":100,"asset":"USD"}],"metadata":{},"timestamp":"${T1}","insertedAt":"${T1}","updatedAt":"${T2}","reverted":true,"revertedAt":"${T2}"}`;
    const revert = `{"id":2,"postings":[{"source":"users:1","destination":"world","amount":100,"asset":"USD"}],"metadata":{"com.formance.spec/state/reverts":"1"},"timestamp":"${T2}","insertedAt":"${T2}","updatedAt":"${T2}","reverted":false}`;
    const revertedPost =
      '{"world":{"USD":{"input":0,"output":100,"balance":-100}},"users:1":{"USD":{"input":100,"output":0,"balance":100}}}';
    const revertedPre =
      '{"world":{"USD":{"input":0,"output":0,"balance":0}},"users:1":{"USD":{"input":0,"output":0,"balance":0}}}';
    const revertPost =
      '{"users:1":{"USD":{"input":100,"output":100,"balance":0}},"world":{"USD":{"input":100,"output":100,"balance":0}}}';
    const revertPre =
      '{"users:1":{"USD":{"input":100,"output":0,"balance":100}},"world":{"USD":{"input":0,"output":100,"balance":-100}}}';
    const item = logItem(
      'main',
      3,
      'REVERTED_TRANSACTION',
      `{"revertedTransaction":${reverted},"transaction":${revert}}`,
      `{"post":${revertPost},"revertedPost":${revertedPost}}`,
    );
    const id = sha('ledger/main/3');
    const withVolumes = (tx: string, post: string, pre: string) =>
      `${tx.slice(0, -1)},"postCommitVolumes":${post},"preCommitVolumes":${pre}}`;
    expect(ledgerEventsOfImage(item)).toEqual([
      {
        id,
        type: 'ledger.reverted_transaction',
        body: envelope(
          id,
          'ledger.reverted_transaction',
          `{"ledger":"main","revertedTransaction":${withVolumes(reverted, revertedPost, revertedPre)},"revertTransaction":${withVolumes(revert, revertPost, revertPre)}}`,
        ),
      },
    ]);
  });

  it('SET_METADATA: ledger.saved_metadata, the target id as a string (account or transaction)', () => {
    const onTx = logItem(
      'l-1',
      4,
      'SET_METADATA',
      '{"targetType":"TRANSACTION","targetId":9,"metadata":{"a":"1","b":"2"}}',
      '{}',
    );
    const onAccount = logItem(
      'l-1',
      5,
      'SET_METADATA',
      '{"targetType":"ACCOUNT","targetId":"users:1","metadata":{"a":"1"}}',
      '{}',
      'ik',
    );
    expect([...ledgerEventsOfImage(onTx), ...ledgerEventsOfImage(onAccount)]).toEqual([
      {
        id: sha('ledger/l-1/4'),
        type: 'ledger.saved_metadata',
        body: envelope(
          sha('ledger/l-1/4'),
          'ledger.saved_metadata',
          '{"ledger":"l-1","targetType":"TRANSACTION","targetId":"9","metadata":{"a":"1","b":"2"}}',
        ),
      },
      {
        id: sha('ledger/l-1/5'),
        type: 'ledger.saved_metadata',
        body: envelope(
          sha('ledger/l-1/5'),
          'ledger.saved_metadata',
          '{"ledger":"l-1","targetType":"ACCOUNT","targetId":"users:1","metadata":{"a":"1"}}',
          'ik',
        ),
      },
    ]);
  });

  it('DELETE_METADATA: ledger.deleted_metadata with the key', () => {
    const item = logItem(
      'main',
      6,
      'DELETE_METADATA',
      '{"targetType":"TRANSACTION","targetId":2,"key":"a"}',
      '{}',
    );
    expect(ledgerEventsOfImage(item)).toEqual([
      {
        id: sha('ledger/main/6'),
        type: 'ledger.deleted_metadata',
        body: envelope(
          sha('ledger/main/6'),
          'ledger.deleted_metadata',
          '{"ledger":"main","targetType":"TRANSACTION","targetId":"2","key":"a"}',
        ),
      },
    ]);
  });

  it('the mapping item: ledger.updated_mapping of its HEAD version, a payload the catalog accepts', () => {
    const mapping = `{"contracts":[{"name":"overdraft","account":"users:*","expr":{"$gte":["$balance",-${BIG}]}},{"account":"*","expr":{"$gte":["$balance",0]}}]}`;
    const item = { pk: 'E#default#L#main', sk: 'MAPPING', version: 5, mapping, date: T2, ev: '{}' };
    const id = sha('ledger/main/head/5');
    const events = ledgerEventsOfImage(item);
    expect(events).toEqual([
      {
        id,
        type: 'ledger.updated_mapping',
        body: envelope(id, 'ledger.updated_mapping', `{"ledger":"main","mapping":${mapping}}`),
      },
    ]);
    const parsed = parseJson(events[0]!.body) as { payload: unknown };
    expect(v.safeParse(envelopeSchema, parsed).success).toBe(true);
    expect(v.safeParse(updatedMappingPayloadSchema, parsed.payload).success).toBe(true);
    // A stream image may carry the version as a bigint: same event.
    expect(ledgerEventsOfImage({ ...item, version: 5n })).toEqual(events);
  });

  it("another environment's ledger of the same name: the same payloads, event ids of its own", () => {
    const data = '{"targetType":"ACCOUNT","targetId":"users:1","metadata":{"a":"1"}}';
    const inDefault = logItem('main', 3, 'SET_METADATA', data, '{}');
    const inSandbox = logItem('main', 3, 'SET_METADATA', data, '{}', '', 'sandbox-1');
    const payload =
      '{"ledger":"main","targetType":"ACCOUNT","targetId":"users:1","metadata":{"a":"1"}}';
    expect(ledgerEventsOfImage(inSandbox)).toEqual([
      {
        id: sha('ledger@sandbox-1/main/3'),
        type: 'ledger.saved_metadata',
        body: envelope(sha('ledger@sandbox-1/main/3'), 'ledger.saved_metadata', payload),
      },
    ]);
    expect(ledgerEventsOfImage(inDefault)[0]!.id).toBe(sha('ledger/main/3'));
    const mapping = {
      sk: 'MAPPING',
      version: 2,
      mapping: '{"contracts":[]}',
      date: T2,
      ev: '{}',
    };
    const [fromSandbox] = ledgerEventsOfImage({ ...mapping, pk: 'E#sandbox-1#L#main' });
    const [fromDefault] = ledgerEventsOfImage({ ...mapping, pk: 'E#default#L#main' });
    expect(fromSandbox!.id).toBe(sha('ledger@sandbox-1/main/head/2'));
    expect(fromDefault!.id).toBe(sha('ledger/main/head/2'));
    expect(parseJson(fromSandbox!.body)).toMatchObject({ payload: { ledger: 'main' } });
  });

  it('every envelope passes the catalog schema', () => {
    const item = logItem(
      'main',
      12,
      'NEW_TRANSACTION',
      `{"transaction":${tx1},"accountMetadata":{}}`,
      `{"post":${post1}}`,
    );
    expect(v.safeParse(envelopeSchema, parseJson(ledgerEventsOfImage(item)[0]!.body)).success).toBe(
      true,
    );
  });

  it('items without ev carry no event', () => {
    expect(ledgerEventsOfImage({ pk: 'E#default#L#main', sk: 'HEAD', lastLogId: 3 })).toEqual([]);
    const { ev: _ev, ...log } = logItem(
      'main',
      1,
      'SET_METADATA',
      '{"targetType":"ACCOUNT","targetId":"a","metadata":{}}',
      '{}',
    );
    expect(ledgerEventsOfImage(log)).toEqual([]);
  });

  it.each([
    [
      'ev on an item that carries no event',
      { pk: 'E#default#L#main#TX', sk: '000000000000001', ev: '{}' },
    ],
    [
      'a log item of the layout before environments (no E# prefix)',
      { ...logItem('main', 1, 'SET_METADATA', '{}', '{}'), pk: 'L#main#LOG' },
    ],
    [
      'a mapping item of the layout before environments',
      { pk: 'L#main', sk: 'MAPPING', version: 1, mapping: '{"contracts":[]}', date: T2, ev: '{}' },
    ],
    [
      'ev not JSON',
      logItem(
        'main',
        1,
        'SET_METADATA',
        '{"targetType":"ACCOUNT","targetId":"a","metadata":{}}',
        '{',
      ),
    ],
    ['ev not a string', { ...logItem('main', 1, 'SET_METADATA', '{}', '{}'), ev: 1 }],
    ['an unknown log type', logItem('main', 1, 'FROBNICATE', '{}', '{}')],
    [
      'a body that is not JSON',
      { ...logItem('main', 1, 'SET_METADATA', '{}', '{}'), body: 'nope' },
    ],
    [
      'a transaction without its volumes',
      logItem('main', 1, 'NEW_TRANSACTION', `{"transaction":${tx1},"accountMetadata":{}}`, '{}'),
    ],
    [
      'volumes that do not cover the postings',
      logItem(
        'main',
        1,
        'REVERTED_TRANSACTION',
        `{"revertedTransaction":${tx1},"transaction":${tx1}}`,
        '{"post":{},"revertedPost":{}}',
      ),
    ],
    [
      'a mapping item without date',
      { pk: 'E#default#L#main', sk: 'MAPPING', version: 1, mapping: '{"contracts":[]}', ev: '{}' },
    ],
    [
      'a mapping item with an invalid mapping',
      {
        pk: 'E#default#L#main',
        sk: 'MAPPING',
        version: 1,
        mapping: '{"contracts":1}',
        date: T2,
        ev: '{}',
      },
    ],
  ])('throws MalformedEventError for %s', (_what, image) => {
    expect(() => ledgerEventsOfImage(image as Record<string, unknown>)).toThrow(
      MalformedEventError,
    );
  });
});
