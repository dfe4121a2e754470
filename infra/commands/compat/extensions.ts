/**
 * Fields this platform's answers carry beyond the SDK's response schemas on purpose: its own contract's additions
 * (docs/api.md), which an SDK caller never sees (the SDK drops them) and a raw-HTTP caller may use. Any other field
 * the SDK's schema does not declare makes a SHAPE row: it is a field under a name the SDK does not read. Matched on
 * the field's own name (the last segment of its path), per service.
 */
const EXTENSIONS: Record<string, Record<string, string>> = {
  'auth.v1': {
    accessTokenLifetime: "a client's token lifetime (docs/api.md §2)",
    createdAt: 'when a client or secret was created (docs/api.md §2)',
    updatedAt: 'when a client was last changed (docs/api.md §2)',
  },
  'webhooks.v1': {
    name: "a config's name (docs/api.md §4)",
    pageSize: 'every list cursor names its page size (docs/api.md §1)',
    rateLimitPerSecond: "a config's rate limit (docs/api.md §4)",
    failingSince: "a config's endpoint failing since (docs/api.md §4)",
    disabledAt: 'when the deliverer switched a config off (docs/api.md §4)',
    disabledReason: 'why the deliverer switched a config off (docs/api.md §4)',
    configId: "a test attempt's config (docs/api.md §4.1)",
    durationMs: "a test attempt's duration (docs/api.md §4.1)",
    responsePreview: "the first 4 KiB of the receiver's answer to a test (docs/api.md §4.1)",
    date: 'when a test attempt was sent (docs/api.md §4.1)',
  },
  'payments.v3': {
    data: 'a link attempt is answered both wrapped in `data` (the reference server) and unwrapped (what SDK 7.0.1 reads) (docs/api.md §6)',
  },
  'ledger.v2': {
    idempotencyKey: 'a log names the idempotency key of its write (docs/api.md §3.3)',
  },
  'ledger.v1': {
    reverted: 'v1 transactions say whether they were reverted (docs/api.md §3.4)',
    firstUsage: "v1 accounts carry the v2 account's dates (docs/api.md §3.4)",
    insertionDate: "v1 accounts carry the v2 account's dates (docs/api.md §3.4)",
    updatedAt: "v1 accounts carry the v2 account's dates (docs/api.md §3.4)",
  },
};

/** The undeclared field paths of one answer split into this platform's deliberate additions and the others. */
export function splitExtensions(
  service: string,
  paths: readonly string[],
): { extensions: string[]; unknown: string[] } {
  const known = EXTENSIONS[service] ?? {};
  const extensions: string[] = [];
  const unknown: string[] = [];
  for (const path of paths) {
    const leaf = path
      .split('.')
      .pop()!
      .replace(/(\[\]|\{\})+$/, '');
    (Object.hasOwn(known, leaf) ? extensions : unknown).push(path);
  }
  return { extensions, unknown };
}
