// Our deliveries must verify, unmodified, with the reference Standard Webhooks library.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders, unixSeconds } from '../../lib/webhooks/domain/signing.js';
import { verify } from '../../lib/webhooks/receiver/verify.js';

const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 0xa5).toString('base64')}`;
const BODY = JSON.stringify({
  id: 'evt_42',
  type: 'payments.saved_payment',
  payload: { amount: '12345678901234567890' },
});

function send(secrets: string[], id = 'dlv_2f9c', body = BODY) {
  return deliveryHeaders({ id, timestamp: unixSeconds(Date.now()), body, secrets });
}

function standardHeaders(h: Record<string, string>) {
  return {
    'webhook-id': h['webhook-id']!,
    'webhook-timestamp': h['webhook-timestamp']!,
    'webhook-signature': h['webhook-signature']!,
  };
}

const libraryAccepts = (secret: string, body: string, headers: Record<string, string>) => {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
};
const oursAccept = (secret: string, body: string, h: Record<string, string>) =>
  verify(h['webhook-signature'], h['webhook-id'], h['webhook-timestamp'], secret, body);

describe('standardwebhooks interop', () => {
  it('the library verifies our webhook-* headers as sent, and returns the parsed body', () => {
    const headers = send([SECRET]);
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(oursAccept(SECRET, BODY, headers)).toBe(true);
  });

  it('the library also verifies the service-webhook-* values (they are the same)', () => {
    const h = send([SECRET]);
    const renamed = {
      'webhook-id': h['service-webhook-id']!,
      'webhook-timestamp': h['service-webhook-timestamp']!,
      'webhook-signature': h['service-webhook-signature']!,
    };
    expect(libraryAccepts(SECRET, BODY, renamed)).toBe(true);
  });

  it('our signature is byte-identical to the library sign()', () => {
    const h = send([SECRET]);
    const date = new Date(Number(h['webhook-timestamp']) * 1000);
    expect(new Webhook(SECRET).sign(h['webhook-id']!, date, BODY)).toBe(h['webhook-signature']);
  });

  it('a two-secret header verifies with either secret, in both implementations', () => {
    const headers = send([SECRET, OTHER]);
    for (const secret of [SECRET, OTHER]) {
      expect(libraryAccepts(secret, BODY, headers)).toBe(true);
      expect(oursAccept(secret, BODY, headers)).toBe(true);
    }
  });

  it('tampered body, id, timestamp and a wrong secret fail in both implementations', () => {
    const h = standardHeaders(send([SECRET]));
    const cases: [string, string, Record<string, string>][] = [
      ['body', SECRET, h],
      ['id', SECRET, { ...h, 'webhook-id': 'dlv_other' }],
      [
        'timestamp',
        SECRET,
        { ...h, 'webhook-timestamp': String(Number(h['webhook-timestamp']) - 1) },
      ],
      ['secret', `whsec_${Buffer.alloc(32, 1).toString('base64')}`, h],
    ];
    for (const [what, secret, headers] of cases) {
      const body = what === 'body' ? BODY.replace('42', '43') : BODY;
      expect(libraryAccepts(secret, body, headers), what).toBe(false);
      expect(oursAccept(secret, body, headers), what).toBe(false);
    }
  });

  it('a library-signed message verifies with our receiver', () => {
    const ts = unixSeconds(Date.now());
    const sig = new Webhook(SECRET).sign('msg_lib', new Date(ts * 1000), BODY);
    expect(verify(sig, 'msg_lib', String(ts), SECRET, Buffer.from(BODY))).toBe(true);
  });
});
