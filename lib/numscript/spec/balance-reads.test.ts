import { describe, expect, it } from 'vitest';
import { compile, execute, type ScriptLedger } from '../index.js';
import { recordingLedger, run } from './support.js';

describe('how a script reads the ledger', () => {
  it('reads each source balance once, all before the first statement runs', () => {
    const script = `
      send [COIN 10] ( source = { @a @b } destination = @c )
      send [COIN 10] ( source = { @b @a allowing overdraft up to [COIN 5] } destination = @c )
      send [USD 1] ( source = @c allowing unbounded overdraft destination = @a )
      save [COIN 1] from @d`;
    const { reads } = run(script, { balances: { 'a/COIN': 100n, 'b/COIN': 100n } });
    // Destinations and unbounded sources are never read; the save's account is.
    expect(reads).toEqual(['a/COIN', 'b/COIN', 'd/COIN']);
  });

  it('reads balance() and meta() variables first, in declaration order, without reading them again', () => {
    const script = `vars {
      monetary $b = balance(@a, COIN)
      account $dest = meta(@a, "dest")
    }
    send $b ( source = @a destination = $dest )`;
    const { reads, postings } = run(script, {
      balances: { 'a/COIN': 5n },
      meta: { a: { dest: 'z' } },
    });
    expect(reads).toEqual(['a/COIN', 'meta a dest']);
    expect(postings).toEqual([['a', 'z', 5n, 'COIN']]);
  });

  it('lets a ledger throw to ask for a re-run, after trying every balance of the batch', () => {
    const known = new Map<string, bigint>();
    const missing: string[] = [];
    class NeedsRead extends Error {}
    const ledger: ScriptLedger = {
      balance(account, asset) {
        const value = known.get(`${account}/${asset}`);
        if (value === undefined) {
          missing.push(`${account}/${asset}`);
          throw new NeedsRead();
        }
        return value;
      },
      metadata: () => undefined,
      assets: () => [],
    };
    const program = compile('send [COIN 30] ( source = { @a @b @c } destination = @d )');
    expect(() => execute(program, {}, ledger)).toThrow(NeedsRead);
    expect(missing).toEqual(['a/COIN', 'b/COIN', 'c/COIN']);

    known.set('a/COIN', 10n).set('b/COIN', 10n).set('c/COIN', 10n);
    const first = execute(program, {}, ledger);
    const second = execute(program, {}, ledger);
    expect(first).toEqual(second);
    expect(first.postings.map((p) => p.source)).toEqual(['a', 'b', 'c']);
  });

  it('never calls the ledger for @world, even in balance()', () => {
    const ledger = recordingLedger({});
    const result = execute(
      compile('vars { monetary $w = balance(@world, COIN) } set_tx_meta("w", $w)'),
      {},
      ledger,
    );
    expect(result.txMetadata).toEqual({ w: 'COIN 0' });
    expect(ledger.reads).toEqual([]);
  });
});
