/**
 * Webhook signing throughput: the project's signer (lib/webhooks/domain/signing.ts, node:crypto HMAC) against the
 * `standardwebhooks` library on the same payloads, ids, timestamps and secret, in the same process. Each side
 * signs for a fixed time slice, alternating, three times; the median rate counts. Both must produce the same
 * signature, or the comparison is void.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { signatureHeader } from '../lib/webhooks/domain/signing.js';
import { median, round } from './stats.js';

export const MIN_SIGNING_RATIO = 3;
const SLICE_MS = 400;
const ROUNDS = 3;

export interface SigningRow {
  payloadBytes: number;
  projectOpsPerSec: number;
  libraryOpsPerSec: number;
  ratio: number;
  ok: boolean;
}

export interface SigningResult {
  source: string;
  rows: SigningRow[];
}

function payload(bytes: number): string {
  const envelope = {
    id: 'evt_bench',
    idempotency_key: '',
    date: '2026-11-23T00:00:00.000Z',
    app: 'ledger',
    version: 'v2',
    type: 'ledger.committed_transactions',
    payload: { pad: '' },
  };
  const base = JSON.stringify(envelope).length;
  envelope.payload.pad = 'x'.repeat(Math.max(0, bytes - base));
  return JSON.stringify(envelope);
}

function rate(fn: (i: number) => void): number {
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < SLICE_MS) {
    for (let k = 0; k < 50; k++) fn(n++);
    now = performance.now();
  }
  return (n / (now - start)) * 1000;
}

export function measureSigning(): SigningResult {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const library = new Webhook(secret);
  const timestamp = 1_795_000_000;
  const date = new Date(timestamp * 1000);
  const rows = [256, 2_048, 16_384].map((size): SigningRow => {
    const body = payload(size);
    const ours = signatureHeader({ id: 'msg_bench', timestamp, body, secrets: [secret] });
    const theirs = library.sign('msg_bench', date, body);
    if (ours !== theirs)
      throw new Error(`signatures differ for a ${size}-byte payload: ${ours} vs ${theirs}`);
    // Warm both (JIT) before timing.
    rate((i) => signatureHeader({ id: `msg_${i}`, timestamp, body, secrets: [secret] }));
    rate((i) => library.sign(`msg_${i}`, date, body));
    const project: number[] = [];
    const lib: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      project.push(
        rate((i) => signatureHeader({ id: `msg_${i}`, timestamp, body, secrets: [secret] })),
      );
      lib.push(rate((i) => library.sign(`msg_${i}`, date, body)));
    }
    const p = median(project);
    const l = median(lib);
    return {
      payloadBytes: Buffer.byteLength(body),
      projectOpsPerSec: Math.round(p),
      libraryOpsPerSec: Math.round(l),
      ratio: round(p / l, 2),
      ok: p / l >= MIN_SIGNING_RATIO,
    };
  });
  return {
    source: `in-process, single thread, ${ROUNDS} alternating ${SLICE_MS} ms slices per side, median; standardwebhooks ${libraryVersion()}`,
    rows,
  };
}

function libraryVersion(): string {
  const pkg = new URL('../node_modules/standardwebhooks/package.json', import.meta.url);
  return `${(JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version} (Webhook.sign; its secret decoded once, in the constructor)`;
}
