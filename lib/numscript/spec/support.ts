import { compile, execute, NumscriptError, type ScriptLedger } from '../index.js';

export interface World {
  vars?: Record<string, string>;
  /** "account/ASSET" → balance; anything missing is 0. */
  balances?: Record<string, bigint>;
  meta?: Record<string, Record<string, string>>;
  featureFlags?: string[];
}

/** A ScriptLedger over fixed data that records every read, in order. */
export function recordingLedger(world: World): ScriptLedger & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    balance(account, asset) {
      reads.push(`${account}/${asset}`);
      return world.balances?.[`${account}/${asset}`] ?? 0n;
    },
    metadata(account, key) {
      reads.push(`meta ${account} ${key}`);
      return world.meta?.[account]?.[key];
    },
    assets(account) {
      reads.push(`assets ${account}`);
      // Keys are `account/ASSET` and account names hold no slash: the asset is all after the first one.
      return Object.keys(world.balances ?? {})
        .filter((k) => k.startsWith(`${account}/`))
        .map((k) => k.slice(account.length + 1));
    },
  };
}

/** Runs a script; postings come back as [source, destination, amount, asset] rows for compact assertions. */
export function run(script: string, world: World = {}) {
  const ledger = recordingLedger(world);
  const result = execute(compile(script), world.vars ?? {}, ledger, {
    featureFlags: world.featureFlags ?? [],
  });
  return {
    postings: result.postings.map((p) => [p.source, p.destination, p.amount, p.asset] as const),
    txMetadata: result.txMetadata,
    accountMetadata: result.accountMetadata,
    reads: ledger.reads,
  };
}

/** The NumscriptError a script ends in (fails the test if it succeeds or throws anything else). */
export function failure(script: string, world: World = {}) {
  try {
    run(script, world);
  } catch (error) {
    if (!(error instanceof NumscriptError)) throw error;
    return {
      code: error.code,
      kind: error.kind,
      line: error.line,
      column: error.column,
      message: error.message,
    };
  }
  throw new Error('expected the script to fail');
}
