import { describe, expect, it } from 'vitest';
import { EarlyAnswers, sharedBarrier } from './durability-barrier.js';

/** A read whose completions the test controls, recording the order of events. */
function controlledRead() {
  const pending: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  const read = () =>
    new Promise<void>((resolve, reject) => {
      pending.push({ resolve, reject });
    });
  return { read, pending };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('sharedBarrier', () => {
  it('serves callers that arrive during a read with one read started after it, never with the earlier one', async () => {
    const { read, pending } = controlledRead();
    const barrier = sharedBarrier(read);
    const done: string[] = [];
    const first = barrier().then(() => done.push('first'));
    await flush();
    const later = Array.from({ length: 5 }, (_, i) => barrier().then(() => done.push(`late${i}`)));
    await flush();
    expect(pending).toHaveLength(1);

    pending[0]!.resolve();
    await first;
    await flush();
    // The five waited for a read of their own, issued after the first returned: not answered by the first read.
    expect(done).toEqual(['first']);
    expect(pending).toHaveLength(2);

    pending[1]!.resolve();
    await Promise.all(later);
    expect(done).toEqual(['first', 'late0', 'late1', 'late2', 'late3', 'late4']);
    expect(pending).toHaveLength(2);
  });

  it('passes a failed read to every caller waiting on it, and the next caller reads again', async () => {
    const { read, pending } = controlledRead();
    const barrier = sharedBarrier(read);
    const a = barrier();
    const b = barrier();
    await flush();
    pending[0]!.resolve();
    await a;
    await flush();
    pending[1]!.reject(new Error('down'));
    await expect(b).rejects.toThrow('down');
    const c = barrier();
    await flush();
    expect(pending).toHaveLength(3);
    pending[2]!.resolve();
    await expect(c).resolves.toBeUndefined();
  });

  it('with early answers counted, joins a read in flight issued after every answer so far, and never one issued before', async () => {
    const { read, pending } = controlledRead();
    const answers = new EarlyAnswers();
    const barrier = sharedBarrier(read, answers);
    const done: string[] = [];
    answers.observe('DynamoDB_20120810.TransactWriteItems');
    // A batch landed: the engine reads the barrier at once (issued at count 1).
    const engine = barrier().then(() => done.push('engine'));
    await flush();
    // Its requesters, answered before that read was issued: covered by it, no read of their own.
    const covered = Array.from({ length: 3 }, (_, i) => barrier().then(() => done.push(`n${i}`)));
    // A single-item write is answered after its commit: it does not move the count.
    answers.observe('DynamoDB_20120810.PutItem');
    const put = barrier().then(() => done.push('put'));
    // The next batch's transaction answered (count 2): its requester needs a read issued after it.
    answers.observe('DynamoDB_20120810.TransactWriteItems');
    const later = barrier().then(() => done.push('later'));
    await flush();
    expect(pending).toHaveLength(1);

    pending[0]!.resolve();
    await Promise.all([engine, ...covered, put]);
    await flush();
    expect(done).toEqual(['engine', 'n0', 'n1', 'n2', 'put']);
    expect(pending).toHaveLength(2);
    pending[1]!.resolve();
    await later;
    expect(done).toEqual(['engine', 'n0', 'n1', 'n2', 'put', 'later']);
  });

  it('without early answers counted, a caller never joins a read in flight', async () => {
    const { read, pending } = controlledRead();
    const barrier = sharedBarrier(read);
    const first = barrier();
    const second = barrier();
    await flush();
    expect(pending).toHaveLength(1);
    pending[0]!.resolve();
    await first;
    await flush();
    expect(pending).toHaveLength(2);
    pending[1]!.resolve();
    await expect(second).resolves.toBeUndefined();
  });
});
