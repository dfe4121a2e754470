import { describe, expect, it } from 'vitest';
import { sharedBarrier } from './durability-barrier.js';

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
});
