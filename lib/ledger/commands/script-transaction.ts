import { lazyLoad } from '../../async/lazy-load.js';
import {
  CompilationFailedError,
  InsufficientFundError,
  MetadataOverrideError,
  NoPostingsError,
  ScriptReadsChangedError,
  ValidationError,
} from '../../errors/index.js';
import type { Program, ScriptLedger, ScriptResult } from '../../numscript/index.js';
import type { LedgerState, Reads } from '../domain/change.js';
import { postingReads } from '../domain/posting-effects.js';
import { pairKey, type ScriptAccount, type ScriptStateReads } from '../domain/script-state.js';

/**
 * Numscript in the write path (docs/numscript.md). A script reads balances and metadata, and which ones can depend
 * on what it reads (a `meta()` account), so its reads are learnt before the write by running it over current
 * state — the *plan* — and declared like any write's reads. The decision then runs it again, over the write's
 * consistent snapshot: only that run counts. If it asks for something the plan did not read (the ledger changed
 * in between), the decision refuses with ScriptReadsChangedError and the write is planned again.
 */

export { pairKey, type ScriptAccount, type ScriptStateReads };

export interface ScriptInput {
  plain: string;
  vars?: Record<string, unknown>;
}

/** The Numscript module (parser, checker, interpreter), loaded by the first script (`loadNumscript`). */
type Numscript = typeof import('../../numscript/index.js');

/**
 * Numscript is imported at the first script a container plans, not at start-up: a bundle split into chunks
 * (infra/bundling.ts) keeps its 48 KB out of the cold start of every request that sends no script (about 2 ms of
 * the ledger function's import, measured by `npm run bench -- --only cold-start`). No static import of
 * lib/numscript may stay in this file, or the bundle would load it at start-up again.
 */
const loadNumscript = lazyLoad((): Promise<Numscript> => import('../../numscript/index.js'));

export interface ScriptPlan {
  /** The loaded Numscript module the program was compiled by: the decision runs it synchronously. */
  engine: Numscript;
  program: Program;
  vars: Record<string, string>;
  /** Everything the write reads: what the script asked for, and what its postings and metadata touch. */
  reads: Reads;
}

/** Rounds of reads a plan may take: each learns every balance of the script's up-front batch at once. */
const MAX_PLAN_ROUNDS = 8;

const NEEDS_READ = Symbol('needs a read');

/** Compiles and plans a script against current state: its reads. Script errors surface here already. */
export async function planScript(
  script: ScriptInput,
  reads: ScriptStateReads,
  extraAccounts: readonly string[],
): Promise<ScriptPlan> {
  const engine = await loadNumscript();
  const program = scriptError(engine, () => engine.compile(script.plain));
  const vars = scriptError(engine, () => engine.varsFromRequest(script.vars));
  const balances = new Map<string, bigint>();
  const metadata = new Map<string, ScriptAccount | undefined>();
  let optimistic = false;
  for (let round = 0; round < MAX_PLAN_ROUNDS; round++) {
    const missingPairs = new Map<string, [string, string]>();
    const missingAccounts = new Set<string>();
    const ledger: ScriptLedger = {
      balance(account, asset) {
        const key = pairKey(account, asset);
        if (!balances.has(key)) {
          missingPairs.set(key, [account, asset]);
          throw NEEDS_READ;
        }
        return balances.get(key)!;
      },
      metadata(account, key) {
        if (!metadata.has(account)) {
          missingAccounts.add(account);
          throw NEEDS_READ;
        }
        return metadata.get(account)?.metadata[key];
      },
      assets(account) {
        if (!metadata.has(account)) {
          missingAccounts.add(account);
          throw NEEDS_READ;
        }
        return metadata.get(account)?.assets ?? [];
      },
    };
    let result: ScriptResult;
    try {
      result = scriptError(engine, () =>
        engine.execute(program, vars, optimistic ? ample(ledger) : ledger),
      );
    } catch (err) {
      // Funds short *now* need not be short when decided: an earlier element of an atomic bulk, or an earlier
      // request of a writer's batch, may pay in first. Plan as if funds sufficed, to learn what the script
      // touches; the decision, over the write's own state, is the one that counts.
      if (err instanceof InsufficientFundError && !optimistic) {
        optimistic = true;
        round--;
        continue;
      }
      if (err !== NEEDS_READ) throw err;
      const [readBalances, readMetadata] = await Promise.all([
        reads.balances([...missingPairs.values()]),
        reads.accounts([...missingAccounts]),
      ]);
      for (const [key] of missingPairs) balances.set(key, readBalances.get(key) ?? 0n);
      for (const account of missingAccounts) metadata.set(account, readMetadata.get(account));
      continue;
    }
    return { engine, program, vars, reads: planReads(result, balances, metadata, extraAccounts) };
  }
  throw new ValidationError('script: reads too many accounts through metadata, one after another');
}

/** A plan's reads: what the script read, and what its postings, metadata and scaling conversions touch. */
function planReads(
  result: ScriptResult,
  balances: ReadonlyMap<string, bigint>,
  accounts: ReadonlyMap<string, unknown>,
  extraAccounts: readonly string[],
): Reads {
  const touched = postingReads(result.postings, [
    ...extraAccounts,
    ...Object.keys(result.accountMetadata),
  ]);
  const pairs = new Map<string, [string, string]>(
    [...balances.keys()].map((k) => [k, k.split('\u0000') as [string, string]]),
  );
  for (const [account, asset] of touched.pairs ?? [])
    pairs.set(pairKey(account, asset), [account, asset]);
  // A conversion the decision makes over other balances than the plan saw posts between these.
  for (const { account, swap, assets } of result.scalings) {
    for (const asset of assets) {
      pairs.set(pairKey(account, asset), [account, asset]);
      pairs.set(pairKey(swap, asset), [swap, asset]);
    }
  }
  return {
    pairs: [...pairs.values()],
    accounts: [...new Set([...(touched.accounts ?? []), ...accounts.keys()])],
  };
}

/**
 * The script run of a decision, over its snapshot. Refuses (to be planned again) when it reads, or posts to, a
 * pair or account its plan did not read: the snapshot would not hold it.
 */
export function runScript(
  plan: ScriptPlan,
  state: LedgerState,
  requestMetadata: Record<string, string>,
): ScriptResult & { metadata: Record<string, string> } {
  const pairs = new Set((plan.reads.pairs ?? []).map(([a, asset]) => pairKey(a, asset)));
  const accounts = new Set(plan.reads.accounts ?? []);
  const changed = () =>
    new ScriptReadsChangedError('the ledger changed while the script was planned; retry');
  const { engine } = plan;
  const result = scriptError(engine, () =>
    engine.execute(plan.program, plan.vars, {
      balance(account, asset) {
        if (!pairs.has(pairKey(account, asset))) throw changed();
        const volume = state.volume(account, asset);
        return volume ? volume.input - volume.output : 0n;
      },
      metadata(account, key) {
        if (!accounts.has(account)) throw changed();
        return state.account(account)?.metadata[key];
      },
      assets(account) {
        if (!accounts.has(account)) throw changed();
        return state.account(account)?.assets ?? [];
      },
    }),
  );
  if (
    result.postings.some(
      (p) => !pairs.has(pairKey(p.source, p.asset)) || !pairs.has(pairKey(p.destination, p.asset)),
    )
  )
    throw changed();
  if (Object.keys(result.accountMetadata).some((a) => !accounts.has(a))) throw changed();
  if (result.postings.length === 0) throw new NoPostingsError('the script moves nothing');
  return {
    ...result,
    metadata: scriptError(engine, () => engine.mergeTxMetadata(requestMetadata, result.txMetadata)),
  };
}

/**
 * Every balance larger than any amount a script can write (a Numscript number has at most 1000 digits): the
 * script's reads are still made, through `ledger`.
 */
const AMPLE = 10n ** 1001n;
function ample(ledger: ScriptLedger): ScriptLedger {
  return {
    balance: (account, asset) => {
      ledger.balance(account, asset);
      return AMPLE;
    },
    metadata: (account, key) => ledger.metadata(account, key),
    assets: (account) => ledger.assets(account),
  };
}

/** A script's errors as the contract's: COMPILATION_FAILED (its message ends with line and column), INSUFFICIENT_FUND, ... */
function scriptError<T>(engine: Numscript, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (!(err instanceof engine.NumscriptError)) throw err;
    switch (err.code) {
      case 'INSUFFICIENT_FUND':
        throw new InsufficientFundError(err.message);
      case 'NO_POSTINGS':
        throw new NoPostingsError(err.message);
      case 'METADATA_OVERRIDE':
        throw new MetadataOverrideError(err.message);
      default:
        throw new CompilationFailedError(err.message); // its position is in the message already
    }
  }
}
