import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { EVENT_APP, EVENT_KINDS, envelopeSchema, isEventKind } from './catalog.js';

describe('event catalog', () => {
  it('lists the kinds of docs/api.md §5, each with its emitting service', () => {
    expect([...EVENT_KINDS]).toEqual([
      'ledger.committed_transactions',
      'ledger.saved_metadata',
      'ledger.deleted_metadata',
      'ledger.updated_mapping',
      'ledger.reverted_transaction',
      'ledger.balance_monitor_triggered',
      'ledger.created_pending',
      'ledger.posted_pending',
      'ledger.voided_pending',
      'payments.saved_payment',
      'payments.saved_account',
      'payments.saved_balance',
      'payments.saved_bank_account',
      'payments.saved_pool',
      'payments.deleted_pool',
      'payments.saved_payment_initiation',
      'payments.saved_payment_initiation_adjustment',
      'payments.saved_payment_initiation_related_payment',
      'webhooks.endpoint_disabled',
      'webhooks.endpoint_recovered',
    ]);
    for (const kind of EVENT_KINDS) expect(EVENT_APP[kind]).toBe(kind.split('.')[0]);
    expect(isEventKind('ledger.saved_metadata')).toBe(true);
    expect(isEventKind('LEDGER.SAVED_METADATA')).toBe(false);
  });

  it('validates the envelope strictly', () => {
    const envelope = {
      id: 'e1',
      idempotency_key: '',
      date: '2026-11-22T10:04:05.123Z',
      app: 'ledger',
      version: 'v2',
      type: 'ledger.saved_metadata',
      payload: { ledger: 'main' },
    };
    expect(v.safeParse(envelopeSchema, envelope).success).toBe(true);
    expect(v.safeParse(envelopeSchema, { ...envelope, type: 'ledger.unknown' }).success).toBe(
      false,
    );
    expect(v.safeParse(envelopeSchema, { ...envelope, extra: 1 }).success).toBe(false);
  });
});
