/**
 * Balance monitors through the write engine on the in-memory port: a monitor created by a HEAD write is in force
 * for the writes committed after it, on the direct path and in a group commit (where each decision sees the
 * balances the earlier ones of its batch left); each crossing is recorded with its log entry and read back from
 * the log items as one `ledger.balance_monitor_triggered` event after the entry's own, in commit order.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { EVENT_PAYLOADS } from '../../../events/payload-schemas.js';
import { MalformedEventError } from '../../events/malformed-event.js';
import { createMonitorWrite, deleteMonitorWrite } from '../commands/monitors.js';
import { operationRequest } from '../commands/operations.js';
import { verifyChain } from '../domain/log-chain.js';
import { LedgerSequencer } from '../write/sequencer.js';
import { createOne, testLedger } from '../write/test-support.js';
import { ledgerKeys } from './keys.js';
import { ledgerEventsOfImage } from './log-events.js';
import { MemoryLedgerTable } from './memory-ledger-table.js';
import { LedgerWriter } from './writer.js';

const ledger = testLedger('monitored');

const writerOver = (table: MemoryLedgerTable) =>
  new LedgerWriter({ tableFor: () => 'memory', tableOf: () => table, sleep: async () => {} });

const send = (source: string, destination: string, amount: bigint) =>
  operationRequest(ledger, createOne(source, destination, amount), async () => undefined);

/** Every event the ledger's log items carry, in log order, as `type logId account before→after`. */
function events(table: MemoryLedgerTable): string[] {
  const logPk = ledgerKeys.log(ledger, 1).pk;
  const items = [...table.items.values()]
    .filter((item) => item.pk === logPk)
    .sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
  return items.flatMap((item) =>
    ledgerEventsOfImage(item).map((event) => {
      const envelope = JSON.parse(event.body) as {
        type: string;
        payload: Record<string, unknown>;
      };
      const p = envelope.payload;
      if (envelope.type !== 'ledger.balance_monitor_triggered') return envelope.type;
      const tx = p.transaction as { id: number };
      return `${p.monitor} log ${p.logId} tx ${tx.id} ${p.account} ${p.before}->${p.after}`;
    }),
  );
}

describe('balance monitors on the write engine', () => {
  it('direct writes: one event per crossing, after its transaction, never once deleted', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const writer = writerOver(table);
    const low = await writer.writeHead(
      createMonitorWrite(
        ledger,
        { account: 'users:*', asset: 'USD', condition: { type: 'below', amount: 100n } },
        randomUUID(),
      ),
    );
    await writer.write(await send('world', 'users:1', 150n)); // 0 -> 150: not a crossing below
    await writer.write(await send('users:1', 'shop', 60n)); // 150 -> 90: crosses
    await writer.write(await send('users:1', 'shop', 10n)); // 90 -> 80: still below
    await writer.write(await send('world', 'users:1', 50n)); // 80 -> 130: back above
    await writer.write(await send('users:1', 'shop', 40n)); // 130 -> 90: crosses again
    await writer.writeHead(deleteMonitorWrite(ledger, low.id));
    await writer.write(await send('world', 'users:1', 20n)); // 90 -> 110
    await writer.write(await send('users:1', 'shop', 20n)); // 110 -> 90: deleted, nothing
    const c = 'ledger.committed_transactions';
    expect(events(table)).toEqual([
      c,
      c,
      `${low.id} log 2 tx 2 users:1 150->90`,
      c,
      c,
      c,
      `${low.id} log 5 tx 5 users:1 130->90`,
      c,
      c,
    ]);
    expect(verifyChain((await table.readLogRange(1, 7)).map((e) => e.log)).ok).toBe(true);
  });

  it('group commit: each decision against the balances its batch left, events in commit order', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const neg = await writerOver(table).writeHead(
      createMonitorWrite(
        ledger,
        {
          account: 'users:1',
          asset: 'USD',
          condition: { type: 'negative' },
          metadata: { team: 'risk' },
        },
        randomUUID(),
      ),
    );
    const any = await writerOver(table).writeHead(
      createMonitorWrite(
        ledger,
        { account: '*', asset: 'USD', condition: { type: 'changes' } },
        randomUUID(),
      ),
    );
    // users:1 may go negative through `force`: 0 -> -5 -> 5 -> -1.
    const forced = (source: string, destination: string, amount: bigint) => ({
      reqId: randomUUID(),
      environment: ledger.environment,
      ledger: ledger.name,
      operation: {
        kind: 'create' as const,
        input: { postings: [{ source, destination, amount, asset: 'USD' }] },
        options: { dryRun: false, force: true },
      },
      deadline: Date.now() + 60_000,
    });
    const batch = [
      forced('users:1', 'shop', 5n),
      forced('world', 'users:1', 10n),
      forced('users:1', 'shop', 6n),
    ];
    const sequencer = new LedgerSequencer({
      items: table,
      table: 'memory',
      ledger,
      owner: 'o',
      inProcess: true,
    });
    const { results } = await sequencer.process(batch);
    expect(batch.map((i) => results.get(i.reqId)?.status)).toEqual([
      'committed',
      'committed',
      'committed',
    ]);
    const c = 'ledger.committed_transactions';
    expect(events(table)).toEqual([
      c,
      `${neg.id} log 1 tx 1 users:1 0->-5`,
      `${any.id} log 1 tx 1 users:1 0->-5`,
      `${any.id} log 1 tx 1 shop 0->5`,
      c,
      `${any.id} log 2 tx 2 world 0->-10`,
      `${any.id} log 2 tx 2 users:1 -5->5`,
      c,
      `${neg.id} log 3 tx 3 users:1 5->-1`,
      `${any.id} log 3 tx 3 users:1 5->-1`,
      `${any.id} log 3 tx 3 shop 5->11`,
    ]);
  });

  it("the event payload is the catalogue's: the monitor, its condition, the pair, the transaction", async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    const writer = writerOver(table);
    const high = await writer.writeHead(
      createMonitorWrite(
        ledger,
        { account: 'users:*', asset: 'USD', condition: { type: 'above', amount: 1000n } },
        randomUUID(),
      ),
    );
    await writer.write(await send('world', 'users:7', 1001n));
    const item = table.get(ledgerKeys.log(ledger, 1))!;
    const [, triggered] = ledgerEventsOfImage(item);
    const envelope = JSON.parse(triggered!.body);
    expect(envelope.type).toBe('ledger.balance_monitor_triggered');
    expect(envelope.payload).toEqual({
      ledger: 'monitored',
      monitor: high.id,
      condition: { type: 'above', amount: 1000 },
      account: 'users:7',
      asset: 'USD',
      before: 0,
      after: 1001,
      logId: 1,
      transaction: expect.objectContaining({
        id: 1,
        postings: [{ source: 'world', destination: 'users:7', amount: 1001, asset: 'USD' }],
      }),
    });
    const schema = EVENT_PAYLOADS['ledger.balance_monitor_triggered'].payload;
    expect(v.safeParse(schema, envelope.payload).success).toBe(true);
  });

  it('a log item whose monitors are not a list is malformed, not silently dropped', async () => {
    const table = MemoryLedgerTable.withHead(ledger);
    await writerOver(table).write(await send('world', 'users:1', 5n));
    const item = table.get(ledgerKeys.log(ledger, 1))!;
    const ev = JSON.parse(String(item.ev)) as Record<string, unknown>;
    expect(ledgerEventsOfImage(item)).toHaveLength(1);
    expect(() =>
      ledgerEventsOfImage({ ...item, ev: JSON.stringify({ ...ev, monitors: { id: 'x' } }) }),
    ).toThrow(MalformedEventError);
  });
});
