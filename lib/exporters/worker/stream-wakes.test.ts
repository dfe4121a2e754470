import { describe, expect, it } from 'vitest';
import { ledgerKeys } from '../../ledger/store/keys.js';
import { exportKeys } from '../store/keys.js';
import { wakesOf } from './stream-wakes.js';

const keys = (k: { pk: string; sk: string }) => ({ pk: { S: k.pk }, sk: { S: k.sk } });
const ledger = { environment: 'acme', name: 'main' };

describe('wakesOf', () => {
  it('wakes a ledger once per batch for its log items, and a running pipeline for its own item', () => {
    const pipeline = exportKeys.pipeline('acme', 'main', 'p-1');
    expect(
      wakesOf([
        { eventName: 'INSERT', dynamodb: { Keys: keys(ledgerKeys.log(ledger, 7)) } },
        { eventName: 'INSERT', dynamodb: { Keys: keys(ledgerKeys.log(ledger, 8)) } },
        {
          eventName: 'MODIFY',
          dynamodb: { Keys: keys(pipeline), NewImage: { enabled: { BOOL: true } } },
        },
      ]),
    ).toEqual([
      { environment: 'acme', ledger: 'main' },
      { environment: 'acme', ledger: 'main', id: 'p-1' },
    ]);
  });

  it('ignores stopped or deleted pipelines, other items of the ledger, and other tables’ keys', () => {
    const pipeline = exportKeys.pipeline('acme', 'main', 'p-1');
    expect(
      wakesOf([
        {
          eventName: 'MODIFY',
          dynamodb: { Keys: keys(pipeline), NewImage: { enabled: { BOOL: false } } },
        },
        { eventName: 'REMOVE', dynamodb: { Keys: keys(ledgerKeys.log(ledger, 9)) } },
        { eventName: 'MODIFY', dynamodb: { Keys: keys(ledgerKeys.head(ledger)) } },
        { eventName: 'INSERT', dynamodb: { Keys: keys(ledgerKeys.transaction(ledger, 3)) } },
        { eventName: 'INSERT', dynamodb: { Keys: keys(exportKeys.exporter('acme', 'x-1')) } },
        {
          eventName: 'INSERT',
          dynamodb: { Keys: { pk: { S: 'L#main#LOG' }, sk: { S: '000000000000001' } } },
        },
      ]),
    ).toEqual([]);
  });
});
