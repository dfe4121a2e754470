/**
 * The load of one scenario from a thread of its own: the closed-loop clients' HTTP work (node:http, JSON) no longer
 * shares the event loop of an embedded platform started in the bench process, as a user's clients never share
 * `npm start`'s. The thread runs runScenario and posts its result back (bigints survive structured cloning).
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import {
  runScenario,
  type ScenarioName,
  type ScenarioParams,
  type ScenarioRun,
} from './ledger-scenarios.js';
import type { LedgerTarget } from './ledger-snapshot.js';

interface Job {
  target: LedgerTarget;
  scenario: ScenarioName;
  ledger: string;
  params: ScenarioParams;
}

/** runScenario, in a worker thread. */
export function runScenarioInThread(
  target: LedgerTarget,
  scenario: ScenarioName,
  ledger: string,
  params: ScenarioParams,
): Promise<ScenarioRun> {
  const job: Job = { target, scenario, ledger, params };
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: job });
    let settled = false;
    worker.once('message', (message: { run?: ScenarioRun; error?: string }) => {
      settled = true;
      if (message.run) resolve(message.run);
      else reject(new Error(message.error ?? 'the load thread failed'));
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the load thread exited with ${code} before answering`));
    });
  });
}

if (!isMainThread && parentPort && (workerData as Job | undefined)?.scenario) {
  const { target, scenario, ledger, params } = workerData as Job;
  const port = parentPort;
  runScenario(target, scenario, ledger, params).then(
    (run) => port.postMessage({ run }),
    (err: unknown) => port.postMessage({ error: err instanceof Error ? err.stack : String(err) }),
  );
}
