import { importJWK, type JSONWebKeySet } from 'jose';
import type { JwksItem } from '../../tokens/jwks-item.js';
import type { SigningKey } from '../../tokens/mint.js';
import type { KeyStore } from '../store/key-store.js';
import { generateSigningKey } from './generate.js';
import {
  decideRotation,
  type GeneratedKey,
  initialKeySet,
  type RotationDecision,
  rotate,
} from './lifecycle.js';

export type { SigningKey } from '../../tokens/mint.js';

/**
 * How long a view of the key set may be kept: by a container before it re-reads the set, and by HTTP caches of
 * the public JWKS (lib/auth/routes/discovery.ts). A next key is published far longer than this before it signs.
 */
export const KEY_SET_CACHE_SECONDS = 5 * 60;

export interface SigningKeysOptions {
  generate?: (now: string) => Promise<GeneratedKey>;
  /** How long a container keeps signing with the key it loaded before checking for a rotation. */
  cacheTtlMs?: number;
  now?: () => number;
}

/**
 * The auth service's view of its keys. Generates the first set on first use — race-safe: concurrent cold
 * starts all end on the one set that won the conditional write. The set is re-read every `cacheTtlMs`; the
 * current private key is read and opened (a KMS Decrypt in the deployed stack) once per container and key,
 * and the public key set never needs it.
 */
export class SigningKeys {
  private cached: { set: JwksItem; loadedAt: number } | undefined;
  private loading: Promise<JwksItem> | undefined;
  private imported: SigningKey | undefined;
  private importing: Promise<SigningKey> | undefined;
  private readonly generate: (now: string) => Promise<GeneratedKey>;
  private readonly cacheTtlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly store: KeyStore,
    options: SigningKeysOptions = {},
  ) {
    this.generate = options.generate ?? generateSigningKey;
    this.cacheTtlMs = options.cacheTtlMs ?? KEY_SET_CACHE_SECONDS * 1000;
    this.now = options.now ?? Date.now;
  }

  async signingKey(): Promise<SigningKey> {
    const set = await this.loadSet();
    const current = set.keys.find((k) => k.status === 'current');
    if (!current) throw new Error('key set has no current key');
    if (this.imported?.kid === current.kid) return this.imported;
    this.importing ??= (async () => {
      try {
        const jwk = await this.store.readPrivateKey(current.kid);
        if (!jwk) throw new Error(`private key ${current.kid} missing`);
        const alg = current.jwk.alg ?? 'RS256';
        this.imported = { kid: current.kid, alg, key: await importJWK(jwk, alg) };
        return this.imported;
      } finally {
        this.importing = undefined;
      }
    })();
    return this.importing;
  }

  /** The public key set in publication order: current, next, previous. */
  async publicKeySet(): Promise<JSONWebKeySet> {
    const set = await this.loadSet();
    return { keys: set.keys.map((k) => k.jwk) };
  }

  private async loadSet(): Promise<JwksItem> {
    if (this.cached && this.now() - this.cached.loadedAt < this.cacheTtlMs) return this.cached.set;
    this.loading ??= (async () => {
      try {
        const set = await this.ensureSet();
        this.cached = { set, loadedAt: this.now() };
        return set;
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  private async ensureSet(): Promise<JwksItem> {
    return (
      (await this.store.readSet()) ??
      (await bootstrapKeySet(this.store, this.generate, new Date(this.now()).toISOString())).set
    );
  }
}

/** Creates the first key set, or returns the one a concurrent writer created first. */
async function bootstrapKeySet(
  store: KeyStore,
  generate: (now: string) => Promise<GeneratedKey>,
  now: string,
): Promise<{ set: JwksItem; created: boolean }> {
  const [current, next] = await Promise.all([generate(now), generate(now)]);
  const set = initialKeySet(current, next, now);
  if (await store.createSet(set, [current, next])) return { set, created: true };
  const winner = await store.readSet();
  if (!winner) throw new Error('key set vanished after a lost bootstrap race');
  return { set: winner, created: false };
}

export interface RotationResult {
  decision: RotationDecision;
  version: number;
  current: string | undefined;
}

/**
 * One rotation step (run on a schedule): publish a next key when there is none, otherwise promote next to
 * current once it has been published long enough. Safe to run concurrently: the write is conditional on the
 * set's version, and the loser reports `skip`.
 */
export async function rotateSigningKeys(
  store: KeyStore,
  options: {
    nowMs: number;
    minNextAgeSeconds: number;
    generate?: (now: string) => Promise<GeneratedKey>;
  },
): Promise<RotationResult> {
  const generate = options.generate ?? generateSigningKey;
  const now = new Date(options.nowMs).toISOString();
  const set = await store.readSet();
  if (!set) {
    const boot = await bootstrapKeySet(store, generate, now);
    return summarise(
      boot.created
        ? { action: 'add-next' }
        : { action: 'skip', reason: 'another writer created the key set' },
      boot.set,
    );
  }
  const decision = decideRotation(set, options.nowMs, options.minNextAgeSeconds);
  if (decision.action === 'skip') return summarise(decision, set);
  const fresh = await generate(now);
  const { set: rotated, retired } = rotate(set, fresh, decision, now);
  if (await store.replaceSet(rotated, set.version, fresh, retired))
    return summarise(decision, rotated);
  return summarise(
    { action: 'skip', reason: 'the key set changed concurrently' },
    await store.readSet(),
  );
}

function summarise(decision: RotationDecision, set: JwksItem | undefined): RotationResult {
  return {
    decision,
    version: set?.version ?? 0,
    current: set?.keys.find((k) => k.status === 'current')?.kid,
  };
}
