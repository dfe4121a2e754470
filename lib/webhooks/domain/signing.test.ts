import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verify, verifyWithTolerance } from '../receiver/verify.js';
import { decodeSecret } from './secret-key.js';
import { deliveryHeaders, signatureHeader, unixSeconds } from './signing.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const ID = 'dlv_01JCXAMPLE';
const TS = 1_763_856_000;
const BODY = '{"id":"evt_1","type":"ledger.committed_transactions","payload":{"amount":100}}';

describe('signing', () => {
  it('is HMAC-SHA256 keyed with the decoded secret bytes over id.timestamp.body', () => {
    const expected = createHmac('sha256', Buffer.alloc(32, 7))
      .update(`${ID}.${TS}.${BODY}`)
      .digest('base64');
    expect(signatureHeader({ id: ID, timestamp: TS, body: BODY, secrets: [SECRET] })).toBe(
      `v1,${expected}`,
    );
  });

  it('signs bytes and the equal string identically', () => {
    const a = signatureHeader({ id: ID, timestamp: TS, body: BODY, secrets: [SECRET] });
    const b = signatureHeader({
      id: ID,
      timestamp: TS,
      body: Buffer.from(BODY),
      secrets: [SECRET],
    });
    expect(a).toBe(b);
  });

  it('emits one space-separated signature per secret during rotation', () => {
    const header = signatureHeader({ id: ID, timestamp: TS, body: BODY, secrets: [SECRET, OTHER] });
    expect(header.split(' ')).toHaveLength(2);
    expect(header).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('produces the full header set, service-webhook-* and webhook-* alike', () => {
    const headers = deliveryHeaders({ id: ID, timestamp: TS, body: BODY, secrets: [SECRET] });
    expect(Object.keys(headers).sort()).toEqual([
      'content-type',
      'service-webhook-id',
      'service-webhook-signature',
      'service-webhook-timestamp',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
    ]);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['service-webhook-timestamp']).toBe('1763856000');
    expect(headers['webhook-id']).toBe(headers['service-webhook-id']);
    expect(headers['webhook-signature']).toBe(headers['service-webhook-signature']);
  });

  it('adds the reference names (formance-webhook-*) when the deployment asks, with the same values', () => {
    const input = { id: ID, timestamp: TS, body: BODY, secrets: [SECRET] };
    const headers = deliveryHeaders(input, ['service', 'standard', 'formance']);
    const defaults = deliveryHeaders(input);
    expect(headers).toEqual({
      ...defaults,
      'formance-webhook-id': ID,
      'formance-webhook-timestamp': '1763856000',
      'formance-webhook-signature': defaults['webhook-signature'],
    });
    expect(Object.keys(deliveryHeaders(input, ['formance'])).sort()).toEqual([
      'content-type',
      'formance-webhook-id',
      'formance-webhook-signature',
      'formance-webhook-timestamp',
    ]);
  });

  it('refuses ids with a "." or whitespace, bad timestamps, no secrets and malformed secrets', () => {
    const ok = { id: ID, timestamp: TS, body: BODY, secrets: [SECRET] };
    expect(() => signatureHeader({ ...ok, id: 'a.b' })).toThrow(/no "\."/);
    expect(() => signatureHeader({ ...ok, id: 'a b' })).toThrow(/delivery id/);
    expect(() => signatureHeader({ ...ok, id: '' })).toThrow(/delivery id/);
    expect(() => signatureHeader({ ...ok, timestamp: 1.5 })).toThrow(/integer/);
    expect(() => signatureHeader({ ...ok, timestamp: Date.now() })).toThrow(/not milliseconds/);
    expect(() => signatureHeader({ ...ok, secrets: [] })).toThrow(/at least one secret/);
    expect(() => signatureHeader({ ...ok, secrets: ['whsec_not base64!'] })).toThrow(/base64/);
    expect(() => decodeSecret('whsec_')).toThrow(/base64/);
  });

  it('uses Unix seconds, never milliseconds', () => {
    expect(unixSeconds(1_763_856_000_999)).toBe(1_763_856_000);
  });
});

describe('receiver verify', () => {
  const header = signatureHeader({ id: ID, timestamp: TS, body: BODY, secrets: [SECRET] });

  it('accepts our signature for string, Buffer and Uint8Array bodies, and string or number timestamps', () => {
    expect(verify(header, ID, String(TS), SECRET, BODY)).toBe(true);
    expect(verify(header, ID, TS, SECRET, Buffer.from(BODY))).toBe(true);
    expect(verify(header, ID, TS, SECRET, new Uint8Array(Buffer.from(BODY)))).toBe(true);
  });

  it('rejects a tampered body, id, timestamp or signature, and a wrong secret', () => {
    expect(verify(header, ID, TS, SECRET, BODY.replace('100', '101'))).toBe(false);
    expect(verify(header, 'dlv_other', TS, SECRET, BODY)).toBe(false);
    expect(verify(header, ID, TS + 1, SECRET, BODY)).toBe(false);
    expect(verify(header, ID, TS, OTHER, BODY)).toBe(false);
    expect(verify(`${header.slice(0, -4)}AAA=`, ID, TS, SECRET, BODY)).toBe(false);
  });

  it('accepts a two-secret header with either secret', () => {
    const both = signatureHeader({ id: ID, timestamp: TS, body: BODY, secrets: [SECRET, OTHER] });
    expect(verify(both, ID, TS, SECRET, BODY)).toBe(true);
    expect(verify(both, ID, TS, OTHER, BODY)).toBe(true);
    expect(verify(both, ID, TS, `whsec_${Buffer.alloc(32, 1).toString('base64')}`, BODY)).toBe(
      false,
    );
  });

  it('skips entries of other versions and malformed entries', () => {
    const sig = header.slice(3);
    expect(verify(`v1a,${sig} garbage v2,${sig}`, ID, TS, SECRET, BODY)).toBe(false);
    expect(verify(`v1a,${sig} garbage ${header}`, ID, TS, SECRET, BODY)).toBe(true);
    expect(verify(`v1,${sig.slice(0, 20)}`, ID, TS, SECRET, BODY)).toBe(false);
  });

  it('treats a missing header or id as unauthenticated, not as a bug', () => {
    expect(verify(undefined, ID, TS, SECRET, BODY)).toBe(false);
    expect(verify(header, undefined, TS, SECRET, BODY)).toBe(false);
    expect(verify(header, 'a.b', TS, SECRET, BODY)).toBe(false);
  });

  it('throws a clear error for a timestamp that is not an integer', () => {
    for (const bad of [
      '1763856000.5',
      '1.7e9',
      '',
      ' 1763856000',
      '-5',
      'abc',
      1.5,
      -1,
      NaN,
      undefined,
      null,
    ]) {
      expect(() => verify(header, ID, bad, SECRET, BODY), String(bad)).toThrow(
        /timestamp must be an integer/,
      );
    }
  });

  it('throws a clear error when the body cannot be read', () => {
    for (const bad of [JSON.parse(BODY), undefined, null, 42]) {
      expect(() => verify(header, ID, TS, SECRET, bad)).toThrow(
        /body cannot be read.*raw request body/,
      );
    }
  });

  it('throws on a malformed secret', () => {
    expect(() => verify(header, ID, TS, 'whsec_***', BODY)).toThrow(/secret/);
    expect(() => verify(header, ID, TS, undefined, BODY)).toThrow(/secret/);
  });
});

describe('verifyWithTolerance', () => {
  const header = signatureHeader({ id: ID, timestamp: TS, body: BODY, secrets: [SECRET] });
  const at = (seconds: number) => (TS + seconds) * 1000;

  it('accepts up to 300 s either way, inclusive', () => {
    for (const offset of [0, 300, -300]) {
      expect(
        verifyWithTolerance(header, ID, TS, SECRET, BODY, { now: at(offset) }),
        String(offset),
      ).toBe(true);
    }
    expect(
      verifyWithTolerance(header, ID, TS, SECRET, BODY, { now: new Date(at(300) + 999) }),
    ).toBe(true);
  });

  it('returns false (does not throw) beyond the window, old or future', () => {
    expect(verifyWithTolerance(header, ID, TS, SECRET, BODY, { now: at(301) })).toBe(false);
    expect(verifyWithTolerance(header, ID, TS, SECRET, BODY, { now: at(-301) })).toBe(false);
  });

  it('honours a custom tolerance and still checks the signature', () => {
    expect(
      verifyWithTolerance(header, ID, TS, SECRET, BODY, { now: at(60), toleranceSeconds: 59 }),
    ).toBe(false);
    expect(
      verifyWithTolerance(header, ID, TS, SECRET, BODY, { now: at(59), toleranceSeconds: 59 }),
    ).toBe(true);
    expect(verifyWithTolerance(header, ID, TS, OTHER, BODY, { now: at(0) })).toBe(false);
  });

  it('defaults to the system clock', () => {
    const now = unixSeconds(Date.now());
    const fresh = signatureHeader({ id: ID, timestamp: now, body: BODY, secrets: [SECRET] });
    expect(verifyWithTolerance(fresh, ID, now, SECRET, BODY)).toBe(true);
    expect(verifyWithTolerance(header, ID, TS, SECRET, BODY)).toBe(false);
  });

  it('still throws for a non-integer timestamp or unreadable body', () => {
    expect(() => verifyWithTolerance(header, ID, '12.5', SECRET, BODY)).toThrow(/timestamp/);
    expect(() => verifyWithTolerance(header, ID, TS, SECRET, {})).toThrow(/body/);
  });
});
