import { describe, expect, it } from 'vitest';
import { decodeIntent, encodeIntent, type Intent } from './intent.js';

const intent: Intent = {
  reqId: 'r-1',
  environment: 'sandbox-1',
  ledger: 'main',
  deadline: 1_700_000_000_000,
  operation: {
    kind: 'create',
    input: { postings: [{ source: 'world', destination: 'a', amount: 10n ** 30n, asset: 'USD' }] },
    options: { dryRun: false, force: false },
  },
};

describe('ledger intents (the ingress queue’s messages)', () => {
  it('carry the environment of their ledger, amounts exact', () => {
    const text = encodeIntent(intent);
    expect(text).toContain('"environment":"sandbox-1"');
    expect(decodeIntent(text)).toEqual(intent);
  });

  it('refuse a message queued before environments (none named), and an invalid environment', () => {
    const { environment: _none, ...old } = intent;
    expect(() => decodeIntent(encodeIntent(old as Intent))).toThrow(
      'intent names no environment (queued by a version before environments)',
    );
    for (const environment of ['', 'A', 'a#b', 7])
      expect(() => decodeIntent(encodeIntent({ ...old, environment } as Intent))).toThrow(
        'intent names no valid environment',
      );
  });
});
