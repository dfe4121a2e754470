/**
 * The embedded platform's ledger event source (infra/local/ledger-events/log-tail-poller.ts) on DynamoDB Local,
 * over ledgers written by the real ledger: every ledger's log is handed over in order from its checkpoint at
 * start, a ledger is read again when a write to it is told of, a failed record is handed again (and none before
 * it), and a mapping change is handed once per version. Records are read back as dispatch reads them.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record } from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerWrites } from '../../../infra/local/ledger-events/ledger-writes.js';
import { dynamoLogTailCheckpoints } from '../../../infra/local/ledger-events/log-tail-checkpoints.js';
import { LogTailPoller } from '../../../infra/local/ledger-events/log-tail-poller.js';
import { ledgerKeys } from '../../../lib/ledger/store/keys.js';
import { ledgerEventsOfRecord } from '../../../lib/webhooks/dispatch/record-events.js';
import { environmentToken } from '../../support/environment-tokens.js';
import {
  type InProcessPlatform,
  startInProcessPlatform,
} from '../../support/in-process-platform.js';
import { type JsonCall, jsonCaller, overHttp } from '../../support/json-call.js';
import { WAIT_LIMIT_MS } from '../../support/time-scale.js';

let platform: InProcessPlatform;
let dynamo: DynamoDBClient;
let call: JsonCall;
let table: string;
const writes = new LedgerWrites();

beforeAll(async () => {
  platform = await startInProcessPlatform();
  dynamo = new DynamoDBClient({
    endpoint: platform.runtime.connection.endpoint!,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  table = platform.runtime.config.tables.ledger;
  const token = await environmentToken(platform.runtime, 'default');
  call = jsonCaller(overHttp, `${platform.baseUrl}/api/ledger`, token);
});

afterAll(async () => {
  dynamo?.destroy();
  await platform?.stop();
});

/** The events handed over, as dispatch decodes them: `<ledger> <type> <transaction id or mapping>`. */
function capture() {
  const seen: string[] = [];
  const batches: string[][] = [];
  const handler = async (records: _Record[]) => {
    batches.push(records.map((r) => r.dynamodb?.SequenceNumber ?? ''));
    for (const r of records)
      for (const e of ledgerEventsOfRecord(r as never) ?? []) {
        const payload = JSON.parse(e.body).payload;
        seen.push(
          `${payload.ledger} ${e.type} ${payload.transactions?.[0]?.id ?? JSON.stringify(payload.mapping ?? '')}`,
        );
      }
    return { batchItemFailures: [] };
  };
  return { seen, batches, handler };
}

function poller(
  consumer: string,
  handler: (
    records: _Record[],
  ) => Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }>,
) {
  return new LogTailPoller({
    dynamo,
    table,
    handler,
    checkpoints: dynamoLogTailCheckpoints(
      platform.runtime.doc,
      platform.runtime.config.tables.webhooks,
      table,
      consumer,
    ),
    writes,
    backoffMs: 10,
  });
}

async function until(what: string, done: () => boolean) {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function transfer(ledger: string, destination: string) {
  const res = await call('POST', `/v2/${ledger}/transactions`, {
    postings: [{ source: 'world', destination, amount: 1, asset: 'USD' }],
  });
  expect(res.status, res.text).toBe(200);
}

const logPartition = (name: string) => ledgerKeys.logPartition({ environment: 'default', name });

describe('the log-tail event source', () => {
  it('hands over every ledger from its beginning at start, in order, and resumes after its checkpoint', async () => {
    for (const ledger of ['tail-a', 'tail-b'])
      expect((await call('POST', `/v2/${ledger}`)).status).toBe(204);
    for (const d of ['x', 'y', 'z']) await transfer('tail-a', d);
    await transfer('tail-b', 'x');
    const first = capture();
    const one = poller('resume', first.handler);
    await one.start();
    await until('four transactions', () => first.seen.length >= 4);
    await one.stop();
    expect(first.seen.filter((s) => s.startsWith('tail-a'))).toEqual([
      'tail-a ledger.committed_transactions 1',
      'tail-a ledger.committed_transactions 2',
      'tail-a ledger.committed_transactions 3',
    ]);
    expect(first.seen.filter((s) => s.startsWith('tail-b'))).toEqual([
      'tail-b ledger.committed_transactions 1',
    ]);

    await transfer('tail-a', 'w');
    const second = capture();
    const two = poller('resume', second.handler);
    await two.start();
    await until('the new transaction', () => second.seen.length >= 1);
    await two.stop();
    expect(second.seen).toEqual(['tail-a ledger.committed_transactions 4']);
  });

  it('reads a ledger again when a write to its log is told of', async () => {
    expect((await call('POST', '/v2/tail-c')).status).toBe(204);
    const seen = capture();
    const running = poller('hinted', seen.handler);
    await running.start();
    await transfer('tail-c', 'x');
    writes.notify([{ table, pk: logPartition('tail-c'), sk: '000000000000000' }]);
    await until('the hinted transaction', () => seen.seen.some((s) => s.startsWith('tail-c')));
    await running.stop();
    expect(seen.seen.filter((s) => s.startsWith('tail-c'))).toEqual([
      'tail-c ledger.committed_transactions 1',
    ]);
  });

  it('hands a failed record over again, and never one before it', async () => {
    expect((await call('POST', '/v2/tail-d')).status).toBe(204);
    for (const d of ['x', 'y', 'z']) await transfer('tail-d', d);
    const seen = capture();
    let failed = false;
    const flaky = async (records: _Record[]) => {
      const mine = records.filter((r) => r.dynamodb?.Keys?.pk?.S === logPartition('tail-d'));
      if (!failed && mine.length === 3) {
        failed = true;
        await seen.handler(records.slice(0, records.indexOf(mine[1]!)));
        return { batchItemFailures: [{ itemIdentifier: mine[1]!.dynamodb!.SequenceNumber! }] };
      }
      return seen.handler(records);
    };
    const running = poller('flaky', flaky);
    await running.start();
    await until(
      'the retried records',
      () => seen.seen.filter((s) => s.startsWith('tail-d')).length >= 3,
    );
    await running.stop();
    expect(failed).toBe(true);
    expect(seen.seen.filter((s) => s.startsWith('tail-d'))).toEqual([
      'tail-d ledger.committed_transactions 1',
      'tail-d ledger.committed_transactions 2',
      'tail-d ledger.committed_transactions 3',
    ]);
  });

  it('hands a mapping change over once per version', async () => {
    expect((await call('POST', '/v2/tail-e')).status).toBe(204);
    const seen = capture();
    const running = poller('mapping', seen.handler);
    await running.start();
    const mapping = { contracts: [{ account: 'users:*', expr: { $gte: ['$balance', -5] } }] };
    expect((await call('PUT', '/tail-e/mapping', mapping)).status).toBe(200);
    const hint = {
      table,
      pk: ledgerKeys.mapping({ environment: 'default', name: 'tail-e' }).pk,
      sk: 'MAPPING',
    };
    writes.notify([hint]);
    await until('the mapping event', () => seen.seen.some((s) => s.startsWith('tail-e')));
    writes.notify([hint]);
    await transfer('tail-e', 'x');
    writes.notify([{ table, pk: logPartition('tail-e'), sk: '000000000000000' }]);
    await until(
      'the transaction after it',
      () => seen.seen.filter((s) => s.startsWith('tail-e')).length >= 2,
    );
    await running.stop();
    expect(seen.seen.filter((s) => s.startsWith('tail-e'))).toEqual([
      `tail-e ledger.updated_mapping ${JSON.stringify(mapping)}`,
      'tail-e ledger.committed_transactions 1',
    ]);
  });
});
