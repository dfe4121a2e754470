/**
 * The payments v1 API through the official SDK 7.0.1 (`sdk.payments.v1`), unmodified, over real HTTP against a local
 * platform: payments, accounts, bank accounts, pools, connectors (named by provider, or by provider and id), their
 * tasks, and transfer initiations sent through dummypay. Every answer is parsed by the SDK's strict models; the
 * records are the v3 ones (the same ids answer on both).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SDK } from '@formance/formance-sdk';
import { SDKValidationError } from '@formance/formance-sdk/sdk/models/errors/sdkvalidationerror.js';
import { PaymentsErrorResponse } from '@formance/formance-sdk/sdk/models/payments/paymentserrorresponse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningPlatform } from '../../../infra/local/platform.js';
import { accountId } from '../../../lib/payments/domain/account.js';
import { paymentId } from '../../../lib/payments/domain/payment.js';
import { paymentInitiationId } from '../../../lib/payments/domain/payment-initiation.js';
import { startSdkPlatform } from '../../support/sdk.js';

let platform: RunningPlatform;
let sdk: SDK;
const root = mkdtempSync(join(tmpdir(), 'sdk-v1-dummypay-'));
const createdAt = new Date('2026-11-22T10:04:05.123Z');

beforeAll(async () => {
  mkdirSync(join(root, 'files'));
  ({ platform, sdk } = await startSdkPlatform({ variables: { PAYMENTS_DUMMYPAY_ROOT: root } }));
});

afterAll(async () => {
  await platform?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** The error the SDK threw, as `{status, errorCode, errorMessage}`. */
async function failure(call: Promise<unknown>) {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (err instanceof PaymentsErrorResponse)
    return {
      status: err.statusCode,
      errorCode: err.errorCode,
      errorMessage: err.errorMessage,
    };
  if (err instanceof SDKValidationError) return { raw: err.rawValue };
  throw new Error(`expected an error, got ${String(err)}`);
}

describe('@formance/formance-sdk 7 against payments v1', () => {
  it('creates, reads, lists and updates a payment in v1 shapes (v1 scheme names, empty account ids)', async () => {
    const P = sdk.payments.v1;
    const reference = `v1-po-${Date.now().toString(36)}`;
    const created = await P.createPayment({
      reference,
      connectorID: 'bank-1',
      type: 'PAYOUT',
      status: 'PENDING',
      scheme: 'sepa credit',
      amount: 250000n,
      asset: 'EUR/2',
      createdAt,
    });
    const id = paymentId('bank-1', reference, 'PAYOUT');
    const expected = {
      id,
      reference,
      type: 'PAYOUT',
      connectorID: 'bank-1',
      status: 'PENDING',
      amount: 250000n,
      initialAmount: 250000n,
      scheme: 'sepa credit',
      asset: 'EUR/2',
      createdAt,
      sourceAccountID: '',
      destinationAccountID: '',
      metadata: {},
      raw: null,
      adjustments: [],
    };
    expect(created.statusCode).toBe(200);
    expect(created.paymentResponse!.data).toEqual(expected);
    // The same record through v3: the scheme in v3's words.
    const v3 = await sdk.payments.v3.getPayment({ paymentID: id });
    expect(v3.v3GetPaymentResponse!.data.scheme).toBe('SEPA_CREDIT');

    expect((await P.updateMetadata({ paymentId: id, requestBody: { k: 'v' } })).statusCode).toBe(
      204,
    );
    const got = await P.getPayment({ paymentId: id });
    expect(got.paymentResponse!.data).toEqual({ ...expected, metadata: { k: 'v' } });
    const listed = await P.listPayments({ pageSize: 100 });
    expect(listed.paymentsCursor!.cursor.data.map((p) => p.id)).toEqual([id]);
    expect(await failure(P.getPayment({ paymentId: 'missing' }))).toEqual({
      status: 404,
      errorCode: 'NOT_FOUND',
      errorMessage: 'payment missing not found',
    });
  });

  it('installs dummypay by provider name, reads and updates its config, lists its tasks, and refuses an ambiguous provider', async () => {
    const P = sdk.payments.v1;
    const installed = await P.installConnector({
      connector: 'DUMMY-PAY',
      connectorConfig: {
        provider: 'Dummypay',
        name: 'v1-dummy',
        directory: 'files',
        filePollingPeriod: '30s',
      },
    });
    expect(installed.statusCode).toBe(201);
    const connectorID = installed.connectorResponse!.data.connectorID;
    expect((await P.listAllConnectors()).connectorsResponse!.data).toEqual([
      { provider: 'DUMMY-PAY', connectorID, name: 'v1-dummy', enabled: true },
    ]);
    const config = { provider: 'Dummypay', name: 'v1-dummy', directory: 'files' };
    expect(
      (await P.readConnectorConfig({ connector: 'DUMMY-PAY' })).connectorConfigResponse!.data,
    ).toEqual({ ...config, filePollingPeriod: '30s' });
    await P.updateConnectorConfigV1({
      connector: 'DUMMY-PAY',
      connectorId: connectorID,
      connectorConfig: { ...config, provider: 'Dummypay', filePollingPeriod: '1m' },
    });
    expect(
      (await P.readConnectorConfigV1({ connector: 'DUMMY-PAY', connectorId: connectorID }))
        .connectorConfigResponse!.data,
    ).toEqual({ ...config, filePollingPeriod: '1m' });

    const tasks = (await P.listConnectorTasks({ connector: 'DUMMY-PAY' })).tasksCursor!.cursor;
    expect(tasks.data.map((t) => [t.descriptor, t.status, t.connectorID])).toEqual([
      [{ name: 'FETCH_ACCOUNTS', key: 'FETCH_ACCOUNTS' }, 'ACTIVE', connectorID],
      [{ name: 'FETCH_EXTERNAL_ACCOUNTS', key: 'FETCH_EXTERNAL_ACCOUNTS' }, 'ACTIVE', connectorID],
      [{ name: 'FETCH_PAYMENTS', key: 'FETCH_PAYMENTS' }, 'ACTIVE', connectorID],
    ]);
    const one = await P.getConnectorTaskV1({
      connector: 'DUMMY-PAY',
      connectorId: connectorID,
      taskId: tasks.data[0]!.id,
    });
    expect(one.taskResponse!.data.id).toBe(tasks.data[0]!.id);
    const configs = (await P.listConfigsAvailableConnectors()).connectorsConfigsResponse!.data;
    expect(configs.dummypay!.directory).toEqual({ dataType: 'string', required: true });
    expect(configs.dummypay!.filePollingPeriod).toEqual({
      dataType: 'duration',
      required: false,
      defaultValue: '30m',
    });

    // A second dummypay connector: the provider alone no longer names one.
    const second = await P.installConnector({
      connector: 'DUMMY-PAY',
      connectorConfig: { provider: 'Dummypay', name: 'v1-dummy-2', directory: 'files' },
    });
    const secondID = second.connectorResponse!.data.connectorID;
    expect(await failure(P.readConnectorConfig({ connector: 'DUMMY-PAY' }))).toEqual({
      status: 400,
      errorCode: 'VALIDATION',
      errorMessage:
        'connector: 2 DUMMY-PAY connectors are installed; name one by id (/connectors/DUMMY-PAY/<connectorId>/...)',
    });
    expect(
      await failure(P.readConnectorConfigV1({ connector: 'GENERIC', connectorId: secondID })),
    ).toEqual({
      status: 404,
      errorCode: 'NOT_FOUND',
      errorMessage: `connector ${secondID} is not a GENERIC connector`,
    });
    expect(
      (await P.uninstallConnectorV1({ connector: 'DUMMY-PAY', connectorId: secondID })).statusCode,
    ).toBe(204);
    expect(
      (await P.listAllConnectors()).connectorsResponse!.data.map((c) => c.connectorID),
    ).toEqual([connectorID]);
  });

  it('creates accounts, bank accounts and pools, and reads them in v1 shapes', async () => {
    const P = sdk.payments.v1;
    const connectorID = (await P.listAllConnectors()).connectorsResponse!.data[0]!.connectorID;
    const created = await P.createAccount({
      reference: 'acc-src',
      connectorID,
      createdAt,
      type: 'INTERNAL',
      defaultAsset: 'EUR/2',
    });
    const source = accountId(connectorID, 'acc-src');
    const account = {
      id: source,
      reference: 'acc-src',
      createdAt,
      connectorID,
      provider: 'DUMMY-PAY',
      defaultAsset: 'EUR/2',
      defaultCurrency: 'EUR/2',
      accountName: '',
      type: 'INTERNAL',
      metadata: {},
      raw: {
        reference: 'acc-src',
        connectorID,
        createdAt: '2026-11-22T10:04:05.123Z',
        type: 'INTERNAL',
        defaultAsset: 'EUR/2',
      },
    };
    expect(created.accountResponse!.data).toEqual(account);
    expect((await P.getAccountPayments({ accountId: source })).accountResponse!.data).toEqual(
      account,
    );
    await P.createAccount({ reference: 'acc-dst', connectorID, createdAt, type: 'INTERNAL' });
    const destination = accountId(connectorID, 'acc-dst');
    // Both created at the same time: listed by creation time, then by id.
    expect((await P.listAccountsPayments({})).accountsCursor!.cursor.data.map((a) => a.id)).toEqual(
      [source, destination].sort(),
    );
    expect((await P.getAccountBalances({ accountId: source })).balancesCursor!.cursor.data).toEqual(
      [],
    );

    const bank = await P.createBankAccount({
      name: 'Alice FR',
      country: 'FR',
      iban: 'FR7630006000011234567890189',
    });
    const bankID = bank.bankAccountResponse!.data.id;
    const bankAccount = {
      id: bankID,
      name: 'Alice FR',
      createdAt: bank.bankAccountResponse!.data.createdAt,
      country: 'FR',
      iban: 'FR7630006000011234567890189',
      metadata: {},
      relatedAccounts: [],
    };
    expect(bank.bankAccountResponse!.data).toEqual(bankAccount);
    await P.updateBankAccountMetadata({
      bankAccountId: bankID,
      updateBankAccountMetadataRequest: { metadata: { team: 'payroll' } },
    });
    expect((await P.getBankAccount({ bankAccountId: bankID })).bankAccountResponse!.data).toEqual({
      ...bankAccount,
      metadata: { team: 'payroll' },
    });
    const { iban: _iban, ...listedBank } = bankAccount;
    expect((await P.listBankAccounts({})).bankAccountsCursor!.cursor.data).toEqual([
      { ...listedBank, metadata: { team: 'payroll' } },
    ]);
    // Forwarded to the dummypay connector: its account for the bank account is named after it.
    const forwarded = await P.forwardBankAccount({
      bankAccountId: bankID,
      forwardBankAccountRequest: { connectorID },
    });
    const [related] = forwarded.bankAccountResponse!.data.relatedAccounts!;
    expect(related).toEqual({
      id: related!.id,
      createdAt: related!.createdAt,
      accountID: accountId(connectorID, `dummypay-${bankID}`),
      connectorID,
      provider: 'DUMMY-PAY',
    });
    expect(forwarded.bankAccountResponse!.data).toEqual({
      ...bankAccount,
      metadata: { team: 'payroll' },
      relatedAccounts: [related],
    });

    const pool = await P.createPool({ name: 'treasury', accountIDs: [source] });
    const poolId = pool.poolResponse!.data.id;
    expect(pool.poolResponse!.data).toEqual({
      id: poolId,
      name: 'treasury',
      type: 'STATIC',
      accounts: [source],
    });
    await P.addAccountToPool({ poolId, addAccountToPoolRequest: { accountID: destination } });
    expect((await P.getPool({ poolId })).poolResponse!.data.accounts).toEqual([
      source,
      destination,
    ]);
    expect((await P.listPools({})).poolsCursor!.cursor.data.map((p) => p.id)).toEqual([poolId]);
    const at = await P.getPoolBalances({ poolId, at: new Date() });
    expect(at.poolBalancesResponse!.data).toEqual({ balances: [] });
    const latest = await P.getPoolBalancesLatest({ poolId });
    expect(latest.poolBalancesLatestResponse!.data).toEqual([]);
    await P.removeAccountFromPool({ poolId, accountId: destination });
    expect((await P.getPool({ poolId })).poolResponse!.data.accounts).toEqual([source]);
    expect(
      await failure(P.updatePoolQuery({ poolId, updatePoolQueryRequest: { query: {} } })),
    ).toEqual({
      status: 400,
      errorCode: 'VALIDATION',
      errorMessage: `pool ${poolId} is a static pool, use the pool account addition or deletion endpoints`,
    });
    expect((await P.deletePool({ poolId })).statusCode).toBe(204);
    expect((await failure(P.getPool({ poolId }))) as { status: number }).toMatchObject({
      status: 404,
    });
  });

  it('creates, validates, reverses, rejects and deletes transfer initiations sent through dummypay', async () => {
    const P = sdk.payments.v1;
    const connectorID = (await P.listAllConnectors()).connectorsResponse!.data[0]!.connectorID;
    const [source, destination] = [
      accountId(connectorID, 'acc-src'),
      accountId(connectorID, 'acc-dst'),
    ];
    const create = (reference: string) =>
      P.createTransferInitiation({
        reference,
        connectorID,
        description: 'rent',
        type: 'TRANSFER',
        amount: 100n,
        asset: 'EUR/2',
        scheduledAt: createdAt,
        sourceAccountID: source,
        destinationAccountID: destination,
        validated: false,
      });
    const created = await create('ti-1');
    const id = paymentInitiationId(connectorID, 'ti-1');
    const view = {
      id,
      reference: 'ti-1',
      createdAt: created.transferInitiationResponse!.data.createdAt,
      scheduledAt: createdAt,
      description: 'rent',
      sourceAccountID: source,
      destinationAccountID: destination,
      connectorID,
      provider: 'DUMMY-PAY',
      type: 'TRANSFER',
      amount: 100n,
      initialAmount: 100n,
      asset: 'EUR/2',
      status: 'WAITING_FOR_VALIDATION',
      error: '',
      metadata: {},
    };
    expect(created.transferInitiationResponse!.data).toEqual(view);

    const validated = await P.updateTransferInitiationStatus({
      transferId: id,
      updateTransferInitiationStatusRequest: { status: 'VALIDATED' },
    });
    expect(validated.statusCode).toBe(204);
    const processed = (await P.getTransferInitiation({ transferId: id }))
      .transferInitiationResponse!.data;
    expect(processed.status).toBe('PROCESSED');
    expect(processed.relatedPayments).toEqual([
      {
        paymentID: paymentId(connectorID, 'ti-1', 'TRANSFER'),
        createdAt: processed.relatedPayments![0]!.createdAt,
        status: 'SUCCEEDED',
      },
    ]);
    expect(processed.relatedAdjustments!.map((a) => a.status)).toEqual([
      'PROCESSED',
      'PROCESSING',
      'WAITING_FOR_VALIDATION',
    ]);
    expect(await failure(P.retryTransferInitiation({ transferId: id }))).toEqual({
      status: 400,
      errorCode: 'VALIDATION',
      errorMessage: `payment initiation ${id}: cannot retry it while it is PROCESSED (only when FAILED)`,
    });

    const reversed = await P.reverseTransferInitiation({
      transferId: id,
      reverseTransferInitiationRequest: {
        reference: 'ti-1-rev',
        description: 'refund',
        amount: 30n,
        asset: 'EUR/2',
        metadata: {},
      },
    });
    expect(reversed.statusCode).toBe(204);
    expect(
      (await P.getTransferInitiation({ transferId: id })).transferInitiationResponse!.data.status,
    ).toBe('PARTIALLY_REVERSED');

    await create('ti-2');
    const rejected = paymentInitiationId(connectorID, 'ti-2');
    await P.updateTransferInitiationStatus({
      transferId: rejected,
      updateTransferInitiationStatusRequest: { status: 'REJECTED' },
    });
    await create('ti-3');
    const deleted = paymentInitiationId(connectorID, 'ti-3');
    expect((await P.deleteTransferInitiation({ transferId: deleted })).statusCode).toBe(204);
    const listed = await P.listTransferInitiations({ pageSize: 100 });
    expect(
      listed.transferInitiationsCursor!.cursor.data.map((t) => [t.id, t.status, t.error]),
    ).toEqual([
      [id, 'PARTIALLY_REVERSED', ''],
      [rejected, 'REJECTED', ''],
    ]);

    // v1's direct transfer: accounts named by their provider reference, sent at once.
    const transfer = await P.connectorsTransfer({
      connector: 'DUMMY-PAY',
      transferRequest: { amount: 50n, asset: 'EUR/2', source: 'acc-src', destination: 'acc-dst' },
    });
    const transferId = transfer.transferResponse!.id!;
    const sent = (await P.getTransferInitiation({ transferId })).transferInitiationResponse!.data;
    expect([sent.status, sent.amount, sent.sourceAccountID, sent.destinationAccountID]).toEqual([
      'PROCESSED',
      50n,
      source,
      destination,
    ]);
  });

  it('resets and uninstalls the connector named by its provider', async () => {
    const P = sdk.payments.v1;
    expect((await P.resetConnector({ connector: 'DUMMY-PAY' })).statusCode).toBe(204);
    expect((await P.listAccountsPayments({})).accountsCursor!.cursor.data).toEqual([]);
    expect((await P.uninstallConnector({ connector: 'DUMMY-PAY' })).statusCode).toBe(204);
    expect((await P.listAllConnectors()).connectorsResponse!.data).toEqual([]);
    expect(await failure(P.listConnectorTasks({ connector: 'DUMMY-PAY' }))).toEqual({
      status: 404,
      errorCode: 'NOT_FOUND',
      errorMessage: 'no DUMMY-PAY connector is installed',
    });
  });
});
