import { describe, expect, it } from 'vitest';
import { decodeDeliveryMessage, encodeDeliveryMessage } from './delivery-queue.js';

const ID = '0123456789abcdef0123456789abcdef';

describe('delivery messages', () => {
  it('carry the environment with the delivery id', () => {
    const body = encodeDeliveryMessage('sandbox-1', ID);
    expect(JSON.parse(body)).toEqual({ environment: 'sandbox-1', deliveryId: ID });
    expect(decodeDeliveryMessage(body)).toEqual({ environment: 'sandbox-1', deliveryId: ID });
  });

  it('read a message queued before environments as one of the default environment', () => {
    expect(decodeDeliveryMessage(JSON.stringify({ deliveryId: ID }))).toEqual({
      environment: 'default',
      deliveryId: ID,
    });
  });

  it('are not delivery messages with a bad environment or id', () => {
    for (const body of [
      JSON.stringify({ environment: 'E#x', deliveryId: ID }),
      JSON.stringify({ environment: null, deliveryId: ID }),
      JSON.stringify({ environment: 7, deliveryId: ID }),
      JSON.stringify({ environment: 'prod', deliveryId: '../x' }),
      JSON.stringify([ID]),
      'null',
      'not json',
    ])
      expect(decodeDeliveryMessage(body), body).toBeUndefined();
  });
});
