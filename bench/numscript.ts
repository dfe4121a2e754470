/**
 * Numscript: parse + check + run of a typical 3-destination script, cold (compiled from text every time, as on
 * a fresh container or a new script) and cached (compiled once, then looked up by text, as for a client that
 * repeats its templates). Pure CPU, no I/O: the ledger is an in-memory map. Samples are per operation; a warm-up
 * round runs first so the JIT has settled, which is what a busy Lambda container sees.
 */
import { compile, execute, type ScriptLedger } from '../lib/numscript/index.js';
import { compileUncached } from '../lib/numscript/program.js';
import { percentile, round } from './stats.js';

export const NUMSCRIPT_BENCH_SCRIPT = `vars {
  monetary $amount
  account $customer
  portion $fee
}
send $amount (
  source = { $customer @world }
  destination = {
    $fee to @platform:fees
    10% to @partners:acme
    remaining to @merchants:042
  }
)
set_tx_meta("kind", "checkout")`;

const SCRIPT = NUMSCRIPT_BENCH_SCRIPT;
const VARS = { amount: 'USD/2 12345', customer: 'users:001', fee: '2.5%' };
const LEDGER: ScriptLedger = {
  balance: () => 10_000n,
  metadata: () => undefined,
  assets: () => [],
};

export interface NumscriptTiming {
  samples: number;
  p50Micros: number;
  p99Micros: number;
  meanMicros: number;
}

export interface NumscriptBenchResult {
  script: string;
  postingsPerRun: number;
  /** compile from text (parse + check) and execute, every operation. */
  cold: NumscriptTiming;
  /** compile served from the cache by text, then execute. */
  cached: NumscriptTiming;
  /** parse + check alone, from text. */
  compileOnly: NumscriptTiming;
}

function time(samples: number, op: () => void): NumscriptTiming {
  for (let i = 0; i < Math.min(samples, 500); i++) op();
  const micros: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    op();
    micros.push((performance.now() - started) * 1000);
  }
  return {
    samples,
    p50Micros: round(percentile(micros, 50), 1),
    p99Micros: round(percentile(micros, 99), 1),
    meanMicros: round(micros.reduce((sum, m) => sum + m, 0) / samples, 1),
  };
}

export async function measureNumscript(samples = 5000): Promise<NumscriptBenchResult> {
  const postingsPerRun = execute(compile(SCRIPT), VARS, LEDGER).postings.length;
  return {
    script: SCRIPT,
    postingsPerRun,
    cold: time(samples, () => execute(compileUncached(SCRIPT), VARS, LEDGER)),
    cached: time(samples, () => execute(compile(SCRIPT), VARS, LEDGER)),
    compileOnly: time(samples, () => compileUncached(SCRIPT)),
  };
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  measureNumscript().then((result) => console.log(JSON.stringify(result, null, 2)));
}
