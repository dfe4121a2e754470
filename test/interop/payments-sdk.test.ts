/**
 * The official TypeScript SDK 7.0.1, unmodified, against the local platform's payments service (in-process) over real HTTP: every
 * payments v3 operation the platform serves parses in the SDK's strict (zod) models, and the ones it does not
 * serve answer 501 NOT_IMPLEMENTED.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SDK } from '@formance/formance-sdk';
import { SDKValidationError } from '@formance/formance-sdk/sdk/models/errors/sdkvalidationerror.js';
import { V3ErrorResponse } from '@formance/formance-sdk/sdk/models/payments/v3errorresponse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../infra/local/platform.js';
import { paymentId } from '../../lib/payments/domain/payment.js';
import { startSdkPlatform } from '../support/sdk.js';

// A whole platform: dummypay reads its files under the root the platform is started with.
let platform: RunningPlatform;
let sdk: SDK;

// dummypay's root: the platform may read files there only.
const dummypayRoot = mkdtempSync(join(tmpdir(), 'sdk-dummypay-'));

beforeAll(async () => {
  ({ platform, sdk } = await startSdkPlatform({
    variables: { PAYMENTS_DUMMYPAY_ROOT: dummypayRoot },
  }));
});

afterAll(async () => {
  await platform?.stop();
  rmSync(dummypayRoot, { recursive: true, force: true });
});

const createdAt = new Date('2026-11-22T10:04:05.123Z');

describe('@formance/formance-sdk 7 against payments v3', () => {
  it('creates, gets, lists and updates the metadata of a payment, each response parsed by the SDK', async () => {
    const reference = `sdk-po-${Date.now().toString(36)}`;
    const created = await sdk.payments.v3.createPayment({
      reference,
      connectorID: 'bank-1',
      type: 'PAYOUT',
      amount: 250000n,
      initialAmount: 250000n,
      asset: 'EUR/2',
      scheme: 'SEPA_CREDIT',
      createdAt,
      metadata: { invoice: 'INV-1' },
    });
    expect(created.statusCode).toBe(201);
    const id = paymentId('bank-1', reference, 'PAYOUT');
    const expected = {
      id,
      connectorID: 'bank-1',
      provider: 'bank-1',
      reference,
      createdAt,
      type: 'PAYOUT',
      status: 'PENDING',
      scheme: 'SEPA_CREDIT',
      asset: 'EUR/2',
      amount: 250000n,
      initialAmount: 250000n,
      metadata: { invoice: 'INV-1' },
    };
    expect(created.v3CreatePaymentResponse!.data).toEqual(expected);

    const got = await sdk.payments.v3.getPayment({ paymentID: id });
    expect(got.v3GetPaymentResponse!.data).toEqual(expected);

    const listed = await sdk.payments.v3.listPayments({ pageSize: 1000 });
    expect(listed.v3PaymentsCursorResponse!.cursor.pageSize).toBe(1000);
    expect(listed.v3PaymentsCursorResponse!.cursor.data.find((p) => p.id === id)).toEqual(expected);

    // The SDK sends {"metadata": {...}}: merged into the payment's metadata. (Its zod records drop a
    // `__proto__` key on both sides, so that key is tested over plain HTTP in test/integration/http/map-keys.test.ts.)
    const patched = await sdk.payments.v3.updatePaymentMetadata({
      paymentID: id,
      v3UpdatePaymentMetadataRequest: { metadata: { checked: 'yes', invoice: 'INV-2' } },
    });
    expect(patched.statusCode).toBe(204);
    const after = await sdk.payments.v3.getPayment({ paymentID: id });
    expect(after.v3GetPaymentResponse!.data).toEqual({
      ...expected,
      metadata: { invoice: 'INV-2', checked: 'yes' },
    });

    // {"metadata": null} (the SDK's type allows it) changes nothing.
    const empty = await sdk.payments.v3.updatePaymentMetadata({
      paymentID: id,
      v3UpdatePaymentMetadataRequest: { metadata: null },
    });
    expect(empty.statusCode).toBe(204);
    expect(
      (await sdk.payments.v3.getPayment({ paymentID: id })).v3GetPaymentResponse!.data.metadata,
    ).toEqual({ invoice: 'INV-2', checked: 'yes' });
  });

  it('takes the provider from a connector id in the reference platform’s form', async () => {
    const connectorID = Buffer.from(
      JSON.stringify({ Provider: 'dummypay', Reference: '6f9a3a3e-4d5b-4c4f-9a57-0c1e7d1f3b2a' }),
    ).toString('base64url');
    const created = await sdk.payments.v3.createPayment({
      reference: `sdk-pi-${Date.now().toString(36)}`,
      connectorID,
      type: 'PAY-IN',
      amount: 100n,
      initialAmount: 100n,
      asset: 'USD/2',
      scheme: 'CARD_VISA',
      createdAt,
    });
    expect(created.v3CreatePaymentResponse!.data).toMatchObject({
      connectorID,
      provider: 'dummypay',
      metadata: {},
    });
  });

  it('reports an unknown payment as a typed V3ErrorResponse (404 NOT_FOUND)', async () => {
    const missing = paymentId('nobody', 'nothing', 'OTHER');
    const err = await sdk.payments.v3.getPayment({ paymentID: missing }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(V3ErrorResponse);
    expect((err as V3ErrorResponse).statusCode).toBe(404);
    expect((err as V3ErrorResponse).errorCode).toBe('NOT_FOUND');
    expect((err as V3ErrorResponse).errorMessage).toBe(`payment ${missing} not found`);
  });

  it('creates and reads accounts, bank accounts, payment service users and pools, each answer parsed by the SDK', async () => {
    const P = sdk.payments.v3;
    const tag = Date.now().toString(36);
    const account = await P.createAccount({
      reference: `sdk-acc-${tag}`,
      connectorID: 'bank-1',
      createdAt,
      accountName: 'Main',
      type: 'INTERNAL',
      defaultAsset: 'EUR/2',
    });
    expect(account.statusCode).toBe(201);
    const created = account.v3CreateAccountResponse!.data;
    expect(created).toMatchObject({
      connectorID: 'bank-1',
      provider: 'bank-1',
      reference: `sdk-acc-${tag}`,
      createdAt,
      type: 'INTERNAL',
      name: 'Main',
      defaultAsset: 'EUR/2',
      metadata: {},
    });
    expect(created.raw).toMatchObject({ accountName: 'Main', reference: `sdk-acc-${tag}` });
    const got = await P.getAccount({ accountID: created.id });
    expect(got.v3GetAccountResponse!.data).toEqual(created);
    const listed = await P.listAccounts({ pageSize: 1000 });
    expect(listed.v3AccountsCursorResponse!.cursor.data.map((a) => a.id)).toContain(created.id);
    const balances = await P.getAccountBalances({ accountID: created.id, asset: 'EUR/2' });
    expect(balances.v3BalancesCursorResponse!.cursor.data).toEqual([]);

    const bank = await P.createBankAccount({
      name: 'Alice FR',
      iban: 'FR7630006000011234567890189',
    });
    expect(bank.statusCode).toBe(201);
    const bankAccountID = bank.v3CreateBankAccountResponse!.data;
    const banks = await P.listBankAccounts({ pageSize: 1000 });
    expect(
      banks.v3BankAccountsCursorResponse!.cursor.data.find((b) => b.id === bankAccountID),
    ).toEqual({
      id: bankAccountID,
      createdAt: expect.any(Date),
      name: 'Alice FR',
      metadata: {},
      relatedAccounts: [],
    });

    const user = await P.createPaymentServiceUser({
      name: 'Alice',
      contactDetails: { email: 'a@example.com' },
    });
    const userID = user.v3CreatePaymentServiceUserResponse!.data;
    const linked = await P.addBankAccountToPaymentServiceUser({
      paymentServiceUserID: userID,
      bankAccountID,
    });
    expect(linked.statusCode).toBe(204);
    const psu = await P.getPaymentServiceUser({ paymentServiceUserID: userID });
    expect(psu.v3GetPaymentServiceUserResponse!.data).toEqual({
      id: userID,
      createdAt: expect.any(Date),
      name: 'Alice',
      contactDetails: { email: 'a@example.com' },
      bankAccountIDs: [bankAccountID],
      metadata: {},
    });
    const users = await P.listPaymentServiceUsers({ pageSize: 1000 });
    const otherUser = (await P.createPaymentServiceUser({ name: 'Bob' }))
      .v3CreatePaymentServiceUserResponse!.data;
    const deletion = await P.deletePaymentServiceUser({ paymentServiceUserID: otherUser });
    const taskID = deletion.v3PaymentServiceUserDeleteResponse!.data.taskID;
    expect((await P.getTask({ taskID })).v3GetTaskResponse!.data).toMatchObject({
      id: taskID,
      status: 'SUCCEEDED',
    });
    expect(users.v3PaymentServiceUsersCursorResponse!.cursor.data.map((u) => u.id)).toContain(
      userID,
    );

    const pool = await P.createPool({ name: `pool-${tag}`, accountIDs: [] });
    const poolID = pool.v3CreatePoolResponse!.data;
    expect((await P.addAccountToPool({ poolID, accountID: created.id })).statusCode).toBe(204);
    const read = await P.getPool({ poolID });
    expect(read.v3GetPoolResponse!.data).toEqual({
      id: poolID,
      name: `pool-${tag}`,
      createdAt: expect.any(Date),
      type: 'STATIC',
      poolAccounts: [created.id],
    });
    expect(
      (await P.listPools({ pageSize: 1000 })).v3PoolsCursorResponse!.cursor.data.map((p) => p.id),
    ).toContain(poolID);
    expect(
      (await P.getPoolBalances({ poolID, at: createdAt })).v3PoolBalancesResponse!.data,
    ).toEqual([]);
    expect((await P.getPoolBalancesLatest({ poolID })).v3PoolBalancesResponse!.data).toEqual([]);
    expect((await P.removeAccountFromPool({ poolID, accountID: created.id })).statusCode).toBe(204);
    expect((await P.deletePool({ poolID })).statusCode).toBe(204);

    // SDK 7.0.1 declares no security on getBankAccount and sends no token: the platform still requires one.
    const anonymous = await P.getBankAccount({ bankAccountID }).catch((e: unknown) => e);
    expect((anonymous as { statusCode?: number }).statusCode).toBe(401);
  });

  it('initiates, approves, reverses, rejects and deletes payment initiations through dummypay, each answer parsed', async () => {
    const P = sdk.payments.v3;
    const tag = Date.now().toString(36);
    const installed = await P.installConnector({
      connector: 'dummypay',
      v3ConnectorConfig: { provider: 'Dummypay', name: `sdk-${tag}`, directory: 'sdk' },
    });
    const connectorID = installed.v3InstallConnectorResponse!.data;
    const accountOf = async (reference: string) =>
      (
        await P.createAccount({
          reference,
          connectorID,
          createdAt,
          accountName: reference,
          type: 'INTERNAL',
        })
      ).v3CreateAccountResponse!.data.id;
    const [source, destination] = [await accountOf('src'), await accountOf('dst')];
    const initiate = async (reference: string) =>
      (
        await P.initiatePayment({
          v3InitiatePaymentRequest: {
            reference,
            connectorID,
            description: 'rent',
            type: 'TRANSFER',
            amount: 500n,
            asset: 'EUR/2',
            scheduledAt: new Date('2020-01-01T00:00:00Z'),
            sourceAccountID: source,
            destinationAccountID: destination,
            metadata: { lease: 'L-1' },
          },
        })
      ).v3InitiatePaymentResponse!.data.paymentInitiationID!;

    const id = await initiate(`sdk-pi-${tag}`);
    const waiting = (await P.getPaymentInitiation({ paymentInitiationID: id }))
      .v3GetPaymentInitiationResponse!.data;
    expect(waiting).toEqual({
      id,
      connectorID,
      provider: 'dummypay',
      reference: `sdk-pi-${tag}`,
      createdAt: expect.any(Date),
      scheduledAt: new Date('2020-01-01T00:00:00Z'),
      description: 'rent',
      type: 'TRANSFER',
      sourceAccountID: source,
      destinationAccountID: destination,
      amount: 500n,
      asset: 'EUR/2',
      metadata: { lease: 'L-1' },
      status: 'WAITING_FOR_VALIDATION',
    });
    const approved = await P.approvePaymentInitiation({ paymentInitiationID: id });
    const taskID = approved.v3ApprovePaymentInitiationResponse!.data.taskID;
    expect((await P.getTask({ taskID })).v3GetTaskResponse!.data.status).toBe('SUCCEEDED');
    const reversed = await P.reversePaymentInitiation({
      paymentInitiationID: id,
      v3ReversePaymentInitiationRequest: {
        reference: `sdk-rev-${tag}`,
        description: 'refund',
        amount: 200n,
        asset: 'EUR/2',
      },
    });
    expect(reversed.v3ReversePaymentInitiationResponse!.data.taskID).toEqual(expect.any(String));
    const adjustments = await P.listPaymentInitiationAdjustments({ paymentInitiationID: id });
    expect(
      adjustments.v3PaymentInitiationAdjustmentsCursorResponse!.cursor.data.map((a) => [
        a.status,
        a.amount,
      ]),
    ).toEqual([
      ['REVERSED', 200n],
      ['REVERSE_PROCESSING', 200n],
      ['PROCESSED', 500n],
      ['PROCESSING', 500n],
      ['WAITING_FOR_VALIDATION', 500n],
    ]);
    const related = await P.listPaymentInitiationRelatedPayments({ paymentInitiationID: id });
    expect(
      related.v3PaymentInitiationRelatedPaymentsCursorResponse!.cursor.data.map((p) => [
        p.reference,
        p.status,
      ]),
    ).toEqual([
      [`sdk-pi-${tag}`, 'SUCCEEDED'],
      [`sdk-rev-${tag}`, 'REFUNDED'],
    ]);
    const retry = await P.retryPaymentInitiation({ paymentInitiationID: id }).catch((e) => e);
    expect(retry).toBeInstanceOf(V3ErrorResponse);
    expect((retry as V3ErrorResponse).errorCode).toBe('VALIDATION');

    const rejected = await initiate(`sdk-pi-rej-${tag}`);
    expect((await P.rejectPaymentInitiation({ paymentInitiationID: rejected })).statusCode).toBe(
      204,
    );
    const deleted = await initiate(`sdk-pi-del-${tag}`);
    expect((await P.deletePaymentInitiation({ paymentInitiationID: deleted })).statusCode).toBe(
      204,
    );
    const listed = await P.listPaymentInitiations({ pageSize: 100 });
    expect(
      listed.v3PaymentInitiationsCursorResponse!.cursor.data.map((p) => [p.id, p.status]),
    ).toEqual([
      [id, 'REVERSED'],
      [rejected, 'REJECTED'],
    ]);
  });

  // v1 is served whole (test/integration/payments/payments-v1-sdk.test.ts).
  it('answers 501 NOT_IMPLEMENTED for the reference operations it does not serve', async () => {
    const calls: Array<[string, () => Promise<unknown>, string]> = [
      ['listConversions', () => sdk.payments.v3.listConversions({}), 'v3 conversions'],
      ['listOrders', () => sdk.payments.v3.listOrders({}), 'v3 orders'],
    ];
    for (const [name, call, what] of calls) {
      const err = await call().catch((e: unknown) => e);
      // The SDK's error enum is closed (no NOT_IMPLEMENTED): it reports the 501 as a validation error that
      // carries the raw body.
      expect(err, name).toBeInstanceOf(SDKValidationError);
      expect((err as SDKValidationError).rawValue, name).toMatchObject({
        errorCode: 'NOT_IMPLEMENTED',
        errorMessage: `${what} are not implemented by this platform`,
      });
    }
  });

  it('answers the 501s without a token, while served routes still need one', async () => {
    const orders = await fetch(`${platform.baseUrl}/api/payments/v3/orders`);
    expect(orders.status).toBe(501);
    expect(await orders.json()).toEqual({
      errorCode: 'NOT_IMPLEMENTED',
      errorMessage: 'v3 orders are not implemented by this platform',
    });
    expect((await fetch(`${platform.baseUrl}/api/payments/v3/pools`)).status).toBe(401);
    expect((await fetch(`${platform.baseUrl}/api/payments/v3/payments`)).status).toBe(401);
    expect((await fetch(`${platform.baseUrl}/api/payments/v3/unknown`)).status).toBe(401);
  });
});
