/**
 * The ledger's log hash chain (HASH_LOGS=SYNC), recomputed in the browser. The platform hashes each entry as
 * `lib/ledger/domain/logs.ts` says: SHA-256 over the previous entry's hash (base64, "" for log 1), a newline,
 * and the canonical JSON (keys sorted, big integers as bare numbers) of `{data, date, id, idempotencyKey, type}`.
 * The canonical form comes from the platform's own module, so the two cannot drift; only the digest differs
 * (WebCrypto here, node:crypto there), and test/property/console-chain.test.ts holds them equal.
 *
 * The API lists the log newest first, so the check walks it that way, one page at a time, in constant memory:
 * entry N is checked once entry N-1 (the next one down) is known. It keeps walking past a break and reports the
 * lowest broken id, which is exactly the break `verifyChain` (oldest first, stopping at the first) reports, with
 * the same reason: every link below it holds, and link N is the same comparison in both directions.
 */
import { canonicalJson } from '../lib/json/canonical.js';

export interface ChainEntry {
  id: number;
  type: string;
  data: Record<string, unknown>;
  date: string;
  idempotencyKey: string;
  /** base64 SHA-256; "" when the ledger does not hash its logs. */
  hash: string;
}

export type ChainVerdict =
  | { ok: true; checked: number }
  | { ok: false; checked: number; brokenAt: number; reason: string };

/** A Log as the API sends it (parsed losslessly: ids arrive as bigint), as its hash saw it. */
export function chainEntry(raw: Record<string, unknown>): ChainEntry {
  return {
    id: Number(raw.id),
    type: String(raw.type),
    data: raw.data as Record<string, unknown>,
    date: String(raw.date),
    idempotencyKey: String(raw.idempotencyKey ?? ''),
    hash: String(raw.hash ?? ''),
  };
}

export async function logHash(previousHash: string, entry: ChainEntry): Promise<string> {
  const body = canonicalJson({
    data: entry.data,
    date: entry.date,
    id: entry.id,
    idempotencyKey: entry.idempotencyKey,
    type: entry.type,
  });
  const digest = await crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(`${previousHash}\n${body}`),
  );
  let binary = '';
  for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Feed it the log newest first (`add`), then ask for the verdict (`finish`). */
export class DescendingChainCheck {
  /** The oldest entry seen so far: its own link waits for the entry below it. */
  private waiting: ChainEntry | undefined;
  private lowestBreak: { brokenAt: number; reason: string } | undefined;
  private seen = 0;

  get checked(): number {
    return this.seen;
  }

  async add(entry: ChainEntry): Promise<void> {
    if (this.waiting) await this.link(this.waiting, entry);
    this.waiting = entry;
    this.seen++;
  }

  async finish(): Promise<ChainVerdict> {
    if (this.waiting) await this.link(this.waiting, undefined);
    this.waiting = undefined;
    return this.lowestBreak
      ? { ok: false, checked: this.seen, ...this.lowestBreak }
      : { ok: true, checked: this.seen };
  }

  /** Checks `entry` against the entry just below it (`undefined`: nothing is below it). */
  private async link(entry: ChainEntry, below: ChainEntry | undefined): Promise<void> {
    // Oldest first, the check would have reached `below` (or the start) and then wanted the id after it.
    const wanted = (below?.id ?? 0) + 1;
    if (wanted !== entry.id) {
      // An entry is missing below this one (or the order is wrong): its own hash cannot be checked.
      this.record(
        wanted,
        `expected log ${wanted} here, found log ${entry.id} (missing or out of order)`,
      );
      return;
    }
    if (entry.hash === '') {
      this.record(
        entry.id,
        below === undefined
          ? 'no hash: the ledger does not hash its logs (HASH_LOGS DISABLED), so its log is not verifiable'
          : 'no hash, although earlier entries are hashed',
      );
      return;
    }
    const expected = await logHash(below?.hash ?? '', entry);
    if (entry.hash !== expected)
      this.record(entry.id, `hash mismatch: stored ${entry.hash}, recomputed ${expected}`);
  }

  private record(brokenAt: number, reason: string): void {
    if (this.lowestBreak === undefined || brokenAt <= this.lowestBreak.brokenAt)
      this.lowestBreak = { brokenAt, reason };
  }
}
