import type { Adapter, AdapterPayload } from 'oidc-provider';

interface Entry {
  payload: AdapterPayload;
  /** Epoch ms; undefined: kept as long as the process. */
  expiresAt: number | undefined;
}

/**
 * The provider's sessions, interactions, codes and grants, in this process's memory (one map per provider): a
 * restart logs everyone out, which suits a local test double. Expired entries are dropped when read.
 */
export function memoryStore(): (model: string) => Adapter {
  const entries = new Map<string, Entry>();
  const live = (key: string): AdapterPayload | undefined => {
    const entry = entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) entries.delete(key);
    return entries.get(key)?.payload;
  };
  const findWhere = (model: string, match: (p: AdapterPayload) => boolean) => {
    for (const key of entries.keys()) {
      const payload = key.startsWith(`${model}:`) ? live(key) : undefined;
      if (payload && match(payload)) return payload;
    }
    return undefined;
  };
  return (model) => ({
    async upsert(id, payload, expiresIn) {
      const expiresAt = expiresIn === undefined ? undefined : Date.now() + expiresIn * 1000;
      entries.set(`${model}:${id}`, { payload, expiresAt });
    },
    find: async (id) => live(`${model}:${id}`),
    findByUid: async (uid) => findWhere(model, (p) => p.uid === uid),
    findByUserCode: async (userCode) => findWhere(model, (p) => p.userCode === userCode),
    async consume(id) {
      const payload = live(`${model}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    },
    async destroy(id) {
      entries.delete(`${model}:${id}`);
    },
    async revokeByGrantId(grantId) {
      for (const [key, entry] of entries)
        if (entry.payload.grantId === grantId) entries.delete(key);
    },
  });
}
