import { describe, expect, it } from 'vitest';
import type { LedgerOperation } from '../commands/operations.js';
import type { LedgerRecord } from '../domain/change.js';
import { DEFAULT_FEATURES } from '../domain/features.js';
import type { TransactionReads } from '../store/transaction-reads.js';
import type { LedgerWriter } from '../store/writer.js';
import { LedgerCommands } from './ledger-commands.js';
import type { LedgerRelay, RelayAnswer } from './relay.js';

const ledger: LedgerRecord = {
  environment: 'default',
  id: 1,
  name: 'sticky',
  bucket: '_default',
  metadata: {},
  features: { ...DEFAULT_FEATURES },
  addedAt: '2026-01-01T00:00:00.000Z',
};

const create: LedgerOperation = {
  kind: 'create',
  input: { postings: [{ source: 'world', destination: 'a', amount: 1n, asset: 'USD' }] },
  options: { dryRun: false, force: false },
};

/**
 * A container's commands on a fake clock: every direct attempt meets a concurrent commit (so it relays), and
 * every relayed answer takes `answerMs` of the clock.
 */
function container(answerMs: number) {
  let clock = 1_000_000;
  const directAttempts: number[] = [];
  const writer = {
    writeOrRelay: async (_request: unknown, contention: number) => {
      directAttempts.push(contention);
      return { relay: true as const };
    },
  } as unknown as LedgerWriter;
  const answer: RelayAnswer = {
    status: 'committed',
    outcomes: [{ kind: 'committed', result: { id: 1n }, logId: 1 }],
  } as RelayAnswer;
  const relay = {
    submit: async () => {
      clock += answerMs;
      return answer;
    },
  } as unknown as LedgerRelay;
  const commands = new LedgerCommands({
    writer,
    reads: {} as TransactionReads,
    relay,
    now: () => clock,
  });
  return {
    commands,
    directAttempts,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('a container that relays a busy ledger', () => {
  it('hands a write to the sequenced writer at the first concurrent commit its direct attempt meets', async () => {
    const { commands, directAttempts } = container(10);
    await commands.execute(ledger, create);
    // The contention allowed before relaying: one commit met, no second direct attempt.
    expect(directAttempts).toEqual([1]);
  });

  it('keeps relaying for a second after each answer, however long the answer took', async () => {
    const { commands, directAttempts, advance } = container(1_500);
    await commands.execute(ledger, create);
    expect(directAttempts).toHaveLength(1);
    // The answer took longer than the stickiness: counted from the request, the next write would try direct.
    await commands.execute(ledger, create);
    advance(999);
    await commands.execute(ledger, create);
    expect(directAttempts).toHaveLength(1);
    // A second without an answer: the ledger may be quiet again, and a direct write is tried first.
    advance(1_501);
    await commands.execute(ledger, create);
    expect(directAttempts).toHaveLength(2);
  });
});
