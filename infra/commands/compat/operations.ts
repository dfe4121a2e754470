import type { SDK } from '@formance/formance-sdk';
import { type OperationName, type ServiceApis, type ServiceName, serviceApi } from './services.js';

/** Ids that earlier operations created and later ones use; placeholders until then. */
export interface ProbeIds {
  clientId: string;
  secretId: string;
  /** A person listUsers showed (the embedded platform's development admin logs in before the probe). */
  userId: string;
  configId: string;
  deliveryId: string;
  txid: bigint;
  v1txid: bigint;
  paymentId: string;
  v1PaymentId: string;
  accountId: string;
  bankAccountId: string;
  poolId: string;
  connectorId: string;
  /** A schedule of the probe's connector, and the task its reset started. */
  scheduleId: string;
  taskId: string;
  paymentInitiationId: string;
  paymentServiceUserId: string;
  /** The user's link attempt at the probe's connector, and the connection its callback made. */
  linkAttemptId: string;
  connectionId: string;
  /** The v1 section's own dummypay connector, account, bank account, pool, task and transfer initiation. */
  v1: {
    connectorId: string;
    accountId: string;
    accountReference: string;
    bankAccountId: string;
    poolId: string;
    taskId: string;
    transferId: string;
  };
  exporterId: string;
  pipelineId: string;
  /** What exportLogs answered, for importLogs. */
  exportedLogs: string;
}

export interface ProbeContext {
  /** Names this run creates (ledgers, buckets, references), made unique by `tag`. */
  names: { tag: string; ledger: string; importLedger: string; bucket: string; spareBucket: string };
  /** The probe's loopback webhook endpoint. */
  hookUrl: string;
  now: Date;
  ids: ProbeIds;
  /** The JSON body of the last exchange whose URL contains `part`. */
  json(part: string): any;
  /** The raw body of the last exchange whose URL contains `part`. */
  lastBody(part: string): string | undefined;
  /** Waits (bounded) until the webhook endpoint got a delivery, so the deliveries API has something to show. */
  waitForDelivery(): Promise<void>;
}

/** One SDK operation: how the probe calls it with valid input, and what it keeps from the answer. */
export interface Operation {
  service: ServiceName;
  op: string;
  call(sdk: SDK, ctx: ProbeContext): Promise<unknown>;
  /** Runs after the call whatever its outcome (an id survives an SDK that rejected the body). */
  capture?(ctx: ProbeContext): void;
}

function op<S extends ServiceName>(
  service: S,
  name: OperationName<ServiceApis[S]>,
  call: (api: ServiceApis[S], ctx: ProbeContext) => Promise<unknown>,
  capture?: (ctx: ProbeContext) => void,
): Operation {
  return {
    service,
    op: name,
    call: (sdk, ctx) => call(serviceApi(sdk, service), ctx),
    ...(capture ? { capture } : {}),
  };
}

export function initialIds(): ProbeIds {
  return {
    clientId: 'missing-client',
    secretId: 'missing-secret',
    userId: 'missing-user',
    configId: 'missing-config',
    deliveryId: 'missing-delivery',
    txid: 1n,
    v1txid: 1n,
    paymentId: 'missing-payment',
    v1PaymentId: 'missing-payment',
    accountId: 'missing-account',
    bankAccountId: 'missing-bank-account',
    poolId: 'missing-pool',
    connectorId: 'missing-connector',
    scheduleId: 'missing-schedule',
    taskId: 'missing-task',
    paymentInitiationId: 'missing-payment-initiation',
    paymentServiceUserId: 'missing-psu',
    linkAttemptId: 'missing-attempt',
    connectionId: 'missing-connection',
    v1: {
      connectorId: 'missing-connector',
      accountId: 'missing-account',
      accountReference: 'missing-account',
      bankAccountId: 'missing-bank-account',
      poolId: 'missing-pool',
      taskId: 'missing-task',
      transferId: 'missing-transfer',
    },
    exporterId: 'missing-exporter',
    pipelineId: 'missing-pipeline',
    exportedLogs: '',
  };
}

const TRANSFER = 'send [USD/2 10] (\n  source = @world\n  destination = @users:dave\n)';
const SECRET_24_BYTES = Buffer.from('0123456789abcdef01234567').toString('base64');
const V1_CONNECTOR = 'DUMMY-PAY';
const DUMMY_CONFIG = (name: string) => ({
  provider: 'Dummypay' as const,
  name,
  directory: 'dummypay',
});

/** A payout of 100 EUR/2 between the probe's account and itself, on its connector. */
function initiation(
  c: ProbeContext,
  reference: string,
  connectorID = c.ids.connectorId,
  account = c.ids.accountId,
) {
  return {
    reference,
    connectorID,
    description: 'compat',
    type: 'PAYOUT' as const,
    amount: 100n,
    asset: 'EUR/2',
    scheduledAt: c.now,
    sourceAccountID: account,
    destinationAccountID: account,
  };
}

type PaymentsV3 = ServiceApis['payments.v3'];

/** A v1 transfer initiation between the v1 section's account and itself, waiting for validation. */
function transferV1(c: ProbeContext, reference: string) {
  return {
    reference,
    connectorID: c.ids.v1.connectorId,
    description: 'compat',
    type: 'PAYOUT' as const,
    amount: 100n,
    asset: 'EUR/2',
    scheduledAt: c.now,
    sourceAccountID: c.ids.v1.accountId,
    destinationAccountID: c.ids.v1.accountId,
    validated: false,
  };
}

async function waitingInitiation(
  P: PaymentsV3,
  c: ProbeContext,
  reference: string,
): Promise<string> {
  const res = await P.initiatePayment({ v3InitiatePaymentRequest: initiation(c, reference) });
  return res.v3InitiatePaymentResponse?.data.paymentInitiationID ?? 'missing-initiation';
}

/** An initiation whose sending failed: through a generic connector on a loopback port nothing listens on. */
async function failedInitiation(P: PaymentsV3, c: ProbeContext, prefix = ''): Promise<string> {
  const installed = await P.installConnector({
    connector: 'generic',
    v3ConnectorConfig: {
      provider: 'Generic',
      name: `${prefix}unreachable-${c.names.tag}`,
      endpoint: 'http://127.0.0.1:9',
      apiKey: 'none',
    },
  });
  const connectorID = installed.v3InstallConnectorResponse?.data ?? 'missing-connector';
  const account = await P.createAccount({
    reference: `${prefix}acc-unreachable-${c.names.tag}`,
    connectorID,
    createdAt: c.now,
    accountName: 'Unreachable',
    type: 'INTERNAL',
  });
  const accountID = account.v3CreateAccountResponse?.data.id ?? 'missing-account';
  const created = await P.initiatePayment({
    noValidation: true,
    v3InitiatePaymentRequest: initiation(
      c,
      `${prefix}pi-fail-${c.names.tag}`,
      connectorID,
      accountID,
    ),
  });
  return created.v3InitiatePaymentResponse?.data.paymentInitiationID ?? 'missing-initiation';
}

/**
 * Every operation, in the order the probe runs them: auth and the webhook config first (so later writes produce
 * deliveries), then the ledger v2 and v1 on one ledger, payments, and the deliveries once events have flowed.
 */
export const OPERATIONS: readonly Operation[] = [
  // ---- auth v1
  op('auth.v1', 'getOIDCWellKnowns', (A) => A.getOIDCWellKnowns()),
  op('auth.v1', 'getServerInfoAuth', (A) => A.getServerInfoAuth()),
  op(
    'auth.v1',
    'createClient',
    (A, c) =>
      A.createClient({
        name: `compat-${c.names.tag}`,
        description: 'compat probe',
        scopes: ['ledger:read'],
        metadata: { team: 'compat' },
      }),
    (c) => {
      c.ids.clientId = c.json('/clients')?.data?.id ?? c.ids.clientId;
    },
  ),
  op('auth.v1', 'listClients', (A) => A.listClients()),
  op('auth.v1', 'readClient', (A, c) => A.readClient({ clientId: c.ids.clientId })),
  op('auth.v1', 'updateClient', (A, c) =>
    A.updateClient({
      clientId: c.ids.clientId,
      clientOptions: {
        name: `compat-${c.names.tag}-renamed`,
        scopes: ['ledger:read', 'ledger:write'],
      },
    }),
  ),
  op(
    'auth.v1',
    'createSecret',
    (A, c) =>
      A.createSecret({
        clientId: c.ids.clientId,
        secretOptions: { name: 'compat', metadata: { k: 'v' } },
      }),
    (c) => {
      c.ids.secretId = c.json('/secrets')?.data?.id ?? c.ids.secretId;
    },
  ),
  op('auth.v1', 'deleteSecret', (A, c) =>
    A.deleteSecret({ clientId: c.ids.clientId, secretId: c.ids.secretId }),
  ),
  op(
    'auth.v1',
    'listUsers',
    (A) => A.listUsers(),
    (c) => {
      c.ids.userId = c.json('/users')?.data?.[0]?.id ?? c.ids.userId;
    },
  ),
  op('auth.v1', 'readUser', (A, c) => A.readUser({ userId: c.ids.userId })),
  op('auth.v1', 'deleteClient', (A, c) => A.deleteClient({ clientId: c.ids.clientId })),

  // ---- webhooks v1: the config first, so that ledger and payments writes produce deliveries
  op(
    'webhooks.v1',
    'insertConfig',
    (W, c) =>
      W.insertConfig({
        endpoint: c.hookUrl,
        eventTypes: [
          'ledger.committed_transactions',
          'ledger.saved_metadata',
          'payments.saved_payment',
        ],
      }),
    (c) => {
      c.ids.configId = c.json('/configs')?.data?.id ?? c.ids.configId;
    },
  ),
  op('webhooks.v1', 'getManyConfigs', (W) => W.getManyConfigs({})),
  op('webhooks.v1', 'updateConfig', (W, c) =>
    W.updateConfig({
      id: c.ids.configId,
      configUser: {
        endpoint: c.hookUrl,
        eventTypes: [
          'ledger.committed_transactions',
          'ledger.saved_metadata',
          'payments.saved_payment',
          'ledger.reverted_transaction',
        ],
      },
    }),
  ),
  op('webhooks.v1', 'deactivateConfig', (W, c) => W.deactivateConfig({ id: c.ids.configId })),
  op('webhooks.v1', 'activateConfig', (W, c) => W.activateConfig({ id: c.ids.configId })),
  op('webhooks.v1', 'changeConfigSecret', (W, c) =>
    W.changeConfigSecret({ id: c.ids.configId, configChangeSecret: { secret: SECRET_24_BYTES } }),
  ),
  op('webhooks.v1', 'testConfig', (W, c) => W.testConfig({ id: c.ids.configId })),

  // ---- ledger v2
  op('ledger.v2', 'getInfo', (L) => L.getInfo()),
  op('ledger.v2', 'createLedger', (L, c) =>
    L.createLedger({
      ledger: c.names.ledger,
      v2CreateLedgerRequest: {
        bucket: c.names.bucket,
        metadata: { team: 'compat' },
        features: { HASH_LOGS: 'SYNC' },
      },
    }),
  ),
  op('ledger.v2', 'getLedger', (L, c) => L.getLedger({ ledger: c.names.ledger })),
  op('ledger.v2', 'listLedgers', (L) => L.listLedgers({ pageSize: 10 })),
  op('ledger.v2', 'updateLedgerMetadata', (L, c) =>
    L.updateLedgerMetadata({ ledger: c.names.ledger, requestBody: { owner: 'compat', tmp: 'x' } }),
  ),
  op('ledger.v2', 'deleteLedgerMetadata', (L, c) =>
    L.deleteLedgerMetadata({ ledger: c.names.ledger, key: 'tmp' }),
  ),
  op('ledger.v2', 'getLedgerInfo', (L, c) => L.getLedgerInfo({ ledger: c.names.ledger })),
  op(
    'ledger.v2',
    'createTransaction',
    (L, c) =>
      L.createTransaction({
        ledger: c.names.ledger,
        idempotencyKey: `ik-${c.names.tag}`,
        v2PostTransaction: {
          postings: [
            { source: 'world', destination: 'users:alice', amount: 10000n, asset: 'USD/2' },
          ],
          metadata: { order: '1' },
          reference: `ref-${c.names.tag}`,
        },
      }),
    (c) => {
      c.ids.txid = BigInt(c.json('/transactions')?.data?.id ?? c.ids.txid);
    },
  ),
  op('ledger.v2', 'listTransactions', (L, c) =>
    L.listTransactions({ ledger: c.names.ledger, pageSize: 10, expand: 'volumes' }),
  ),
  op('ledger.v2', 'countTransactions', (L, c) => L.countTransactions({ ledger: c.names.ledger })),
  op('ledger.v2', 'getTransaction', (L, c) =>
    L.getTransaction({ ledger: c.names.ledger, id: c.ids.txid, expand: 'volumes' }),
  ),
  op('ledger.v2', 'addMetadataOnTransaction', (L, c) =>
    L.addMetadataOnTransaction({
      ledger: c.names.ledger,
      id: c.ids.txid,
      requestBody: { checked: 'yes', tmp: 'x' },
    }),
  ),
  op('ledger.v2', 'deleteTransactionMetadata', (L, c) =>
    L.deleteTransactionMetadata({ ledger: c.names.ledger, id: c.ids.txid, key: 'tmp' }),
  ),
  op('ledger.v2', 'createBulk', (L, c) =>
    L.createBulk({
      ledger: c.names.ledger,
      atomic: true,
      requestBody: [
        {
          action: 'CREATE_TRANSACTION',
          ik: `bulk-${c.names.tag}`,
          data: {
            postings: [{ source: 'world', destination: 'users:bob', amount: 500n, asset: 'EUR/2' }],
            metadata: {},
          },
        },
        {
          action: 'ADD_METADATA',
          data: { targetType: 'ACCOUNT', targetId: 'users:bob', metadata: { tier: 'gold' } },
        },
      ],
    }),
  ),
  op('ledger.v2', 'revertTransaction', (L, c) =>
    L.revertTransaction({ ledger: c.names.ledger, id: c.ids.txid, force: true }),
  ),
  op('ledger.v2', 'getAccount', (L, c) =>
    L.getAccount({ ledger: c.names.ledger, address: 'users:alice', expand: 'volumes' }),
  ),
  op('ledger.v2', 'listAccounts', (L, c) =>
    L.listAccounts({ ledger: c.names.ledger, pageSize: 10, expand: 'volumes' }),
  ),
  op('ledger.v2', 'countAccounts', (L, c) => L.countAccounts({ ledger: c.names.ledger })),
  op('ledger.v2', 'addMetadataToAccount', (L, c) =>
    L.addMetadataToAccount({
      ledger: c.names.ledger,
      address: 'users:alice',
      requestBody: { kyc: 'ok', tmp: 'x' },
    }),
  ),
  op('ledger.v2', 'deleteAccountMetadata', (L, c) =>
    L.deleteAccountMetadata({ ledger: c.names.ledger, address: 'users:alice', key: 'tmp' }),
  ),
  op('ledger.v2', 'getBalancesAggregated', (L, c) =>
    L.getBalancesAggregated({ ledger: c.names.ledger }),
  ),
  op('ledger.v2', 'getVolumesWithBalances', (L, c) =>
    L.getVolumesWithBalances({ ledger: c.names.ledger, pageSize: 10 }),
  ),
  op('ledger.v2', 'listLogs', (L, c) => L.listLogs({ ledger: c.names.ledger, pageSize: 50 })),
  op('ledger.v2', 'readStats', (L, c) => L.readStats({ ledger: c.names.ledger })),
  op(
    'ledger.v2',
    'exportLogs',
    (L, c) => L.exportLogs({ ledger: c.names.ledger }),
    (c) => {
      c.ids.exportedLogs = c.lastBody('/logs/export') ?? '';
    },
  ),
  op('ledger.v2', 'importLogs', async (L, c) => {
    await L.createLedger({ ledger: c.names.importLedger, v2CreateLedgerRequest: {} });
    return L.importLogs({
      ledger: c.names.importLedger,
      v2ImportLogsRequest: new TextEncoder().encode(c.ids.exportedLogs),
    });
  }),
  // A schema binds every later write of its ledger, v1's too (which SDK 7.0.1 cannot make name a version, as
  // against the reference): schemas go on the imported copy, which no later probe writes to.
  op('ledger.v2', 'insertSchema', (L, c) =>
    L.insertSchema({
      ledger: c.names.importLedger,
      version: 'v1.0.0',
      v2SchemaData: {
        chart: {
          users: { additionalProperties: { $userID: { dotPattern: '^[0-9a-z]+$' } } },
          world: {},
        },
        queries: {
          q1: { resource: 'accounts', body: { $match: { address: 'users:' } } },
        },
      },
    }),
  ),
  op('ledger.v2', 'listSchemas', (L, c) => L.listSchemas({ ledger: c.names.importLedger })),
  op('ledger.v2', 'getSchema', (L, c) =>
    L.getSchema({ ledger: c.names.importLedger, version: 'v1.0.0' }),
  ),
  op('ledger.v2', 'runQuery', (L, c) =>
    L.runQuery({
      ledger: c.names.importLedger,
      id: 'q1',
      schemaVersion: 'v1.0.0',
      requestBody: {},
    }),
  ),
  op(
    'ledger.v2',
    'createExporter',
    (L) => L.createExporter({ driver: 'stdout', config: {} }),
    (c) => {
      c.ids.exporterId = c.json('/exporters')?.data?.id ?? c.ids.exporterId;
    },
  ),
  op('ledger.v2', 'listExporters', (L) => L.listExporters()),
  op('ledger.v2', 'getExporterState', (L, c) =>
    L.getExporterState({ exporterID: c.ids.exporterId }),
  ),
  op('ledger.v2', 'updateExporter', (L, c) =>
    L.updateExporter({
      exporterID: c.ids.exporterId,
      v2ExporterConfiguration: { driver: 'stdout', config: {} },
    }),
  ),
  op(
    'ledger.v2',
    'createPipeline',
    (L, c) =>
      L.createPipeline({
        ledger: c.names.ledger,
        v2CreatePipelineRequest: { exporterID: c.ids.exporterId },
      }),
    (c) => {
      c.ids.pipelineId = c.json('/pipelines')?.data?.id ?? c.ids.pipelineId;
    },
  ),
  op('ledger.v2', 'listPipelines', (L, c) => L.listPipelines({ ledger: c.names.ledger })),
  op('ledger.v2', 'getPipelineState', (L, c) =>
    L.getPipelineState({ ledger: c.names.ledger, pipelineID: c.ids.pipelineId }),
  ),
  // A pipeline starts when it is created: stopped first, so that starting it is a valid call.
  op('ledger.v2', 'stopPipeline', (L, c) =>
    L.stopPipeline({ ledger: c.names.ledger, pipelineID: c.ids.pipelineId }),
  ),
  op('ledger.v2', 'startPipeline', (L, c) =>
    L.startPipeline({ ledger: c.names.ledger, pipelineID: c.ids.pipelineId }),
  ),
  op('ledger.v2', 'resetPipeline', (L, c) =>
    L.resetPipeline({ ledger: c.names.ledger, pipelineID: c.ids.pipelineId }),
  ),
  op('ledger.v2', 'deletePipeline', (L, c) =>
    L.deletePipeline({ ledger: c.names.ledger, pipelineID: c.ids.pipelineId }),
  ),
  op('ledger.v2', 'deleteExporter', (L, c) => L.deleteExporter({ exporterID: c.ids.exporterId })),
  op('ledger.v2', 'getMetrics', (L) => L.getMetrics()),
  // A bucket of its own with one ledger, so deleting it touches nothing the other operations use.
  op('ledger.v2', 'deleteBucket', async (L, c) => {
    await L.createLedger({
      ledger: `${c.names.spareBucket}-ledger`,
      v2CreateLedgerRequest: { bucket: c.names.spareBucket },
    });
    return L.deleteBucket({ bucket: c.names.spareBucket });
  }),
  op('ledger.v2', 'restoreBucket', (L, c) => L.restoreBucket({ bucket: c.names.spareBucket })),

  // ---- ledger v1, on the same ledger
  op('ledger.v1', 'getInfo', (L) => L.getInfo()),
  op('ledger.v1', 'getLedgerInfo', (L, c) => L.getLedgerInfo({ ledger: c.names.ledger })),
  op(
    'ledger.v1',
    'createTransaction',
    (L, c) =>
      L.createTransaction({
        ledger: c.names.ledger,
        postTransaction: {
          postings: [{ source: 'world', destination: 'users:carol', amount: 700n, asset: 'USD/2' }],
          metadata: { v1: 'yes' },
        },
      }),
    (c) => {
      c.ids.v1txid = BigInt(c.json('/transactions')?.data?.[0]?.txid ?? c.ids.v1txid);
    },
  ),
  op('ledger.v1', 'createTransactions', (L, c) =>
    L.createTransactions({
      ledger: c.names.ledger,
      transactions: {
        transactions: [
          {
            postings: [{ source: 'world', destination: 'users:dave', amount: 50n, asset: 'USD/2' }],
          },
        ],
      },
    }),
  ),
  op('ledger.v1', 'runScript', (L, c) =>
    L.runScript({ ledger: c.names.ledger, script: { plain: TRANSFER } }),
  ),
  op('ledger.v1', 'listTransactions', (L, c) =>
    L.listTransactions({ ledger: c.names.ledger, pageSize: 5 }),
  ),
  op('ledger.v1', 'countTransactions', (L, c) => L.countTransactions({ ledger: c.names.ledger })),
  op('ledger.v1', 'getTransaction', (L, c) =>
    L.getTransaction({ ledger: c.names.ledger, txid: c.ids.v1txid }),
  ),
  op('ledger.v1', 'addMetadataOnTransaction', (L, c) =>
    L.addMetadataOnTransaction({
      ledger: c.names.ledger,
      txid: c.ids.v1txid,
      requestBody: { a: 'b' },
    }),
  ),
  op('ledger.v1', 'revertTransaction', (L, c) =>
    L.revertTransaction({ ledger: c.names.ledger, txid: c.ids.v1txid, disableChecks: true }),
  ),
  op('ledger.v1', 'getAccountLedger', (L, c) =>
    L.getAccountLedger({ ledger: c.names.ledger, address: 'users:alice' }),
  ),
  op('ledger.v1', 'listAccountsLedger', (L, c) =>
    L.listAccountsLedger({ ledger: c.names.ledger, pageSize: 5 }),
  ),
  op('ledger.v1', 'countAccounts', (L, c) => L.countAccounts({ ledger: c.names.ledger })),
  op('ledger.v1', 'addMetadataToAccount', (L, c) =>
    L.addMetadataToAccount({
      ledger: c.names.ledger,
      address: 'users:alice',
      requestBody: { v1: 'yes' },
    }),
  ),
  op('ledger.v1', 'getBalances', (L, c) => L.getBalances({ ledger: c.names.ledger })),
  op('ledger.v1', 'getBalancesAggregated', (L, c) =>
    L.getBalancesAggregated({ ledger: c.names.ledger }),
  ),
  op('ledger.v1', 'listLogs', (L, c) => L.listLogs({ ledger: c.names.ledger })),
  op('ledger.v1', 'readStats', (L, c) => L.readStats({ ledger: c.names.ledger })),
  op('ledger.v1', 'updateMapping', (L, c) =>
    L.updateMapping({
      ledger: c.names.ledger,
      mapping: { contracts: [{ account: 'users:*', expr: { $gte: ['$balance', -1000] } }] },
    }),
  ),
  op('ledger.v1', 'getMapping', (L, c) => L.getMapping({ ledger: c.names.ledger })),

  // ---- payments v3
  op(
    'payments.v3',
    'createPayment',
    (P, c) =>
      P.createPayment({
        reference: `po-${c.names.tag}`,
        connectorID: 'bank-1',
        type: 'PAYOUT',
        amount: 250000n,
        initialAmount: 250000n,
        asset: 'EUR/2',
        scheme: 'SEPA_CREDIT',
        createdAt: c.now,
        metadata: { invoice: 'INV-1' },
      }),
    (c) => {
      c.ids.paymentId = c.json('/v3/payments')?.data?.id ?? c.ids.paymentId;
    },
  ),
  op('payments.v3', 'getPayment', (P, c) => P.getPayment({ paymentID: c.ids.paymentId })),
  op('payments.v3', 'listPayments', (P) => P.listPayments({ pageSize: 10 })),
  op('payments.v3', 'updatePaymentMetadata', (P, c) =>
    P.updatePaymentMetadata({
      paymentID: c.ids.paymentId,
      v3UpdatePaymentMetadataRequest: { metadata: { checked: 'yes' } },
    }),
  ),
  op(
    'payments.v3',
    'installConnector',
    (P, c) =>
      P.installConnector({
        connector: 'dummypay',
        v3ConnectorConfig: DUMMY_CONFIG(`dummy-${c.names.tag}`),
      }),
    (c) => {
      c.ids.connectorId = c.json('/connectors/install')?.data ?? c.ids.connectorId;
    },
  ),
  op('payments.v3', 'listConnectors', (P) => P.listConnectors({})),
  op('payments.v3', 'listConnectorConfigs', (P) => P.listConnectorConfigs()),
  op('payments.v3', 'listConnectorCapabilities', (P) => P.listConnectorCapabilities({})),
  op('payments.v3', 'getConnectorCapabilities', (P, c) =>
    P.getConnectorCapabilities({ connectorID: c.ids.connectorId }),
  ),
  op('payments.v3', 'getConnectorConfig', (P, c) =>
    P.getConnectorConfig({ connectorID: c.ids.connectorId }),
  ),
  op('payments.v3', 'v3UpdateConnectorConfig', (P, c) =>
    P.v3UpdateConnectorConfig({
      connectorID: c.ids.connectorId,
      v3ConnectorConfig: DUMMY_CONFIG(`dummy-${c.names.tag}`),
    }),
  ),
  op(
    'payments.v3',
    'listConnectorSchedules',
    (P, c) => P.listConnectorSchedules({ connectorID: c.ids.connectorId }),
    (c) => {
      c.ids.scheduleId = c.json('/schedules')?.cursor?.data?.[0]?.id ?? c.ids.scheduleId;
    },
  ),
  op('payments.v3', 'getConnectorSchedule', (P, c) =>
    P.getConnectorSchedule({ connectorID: c.ids.connectorId, scheduleID: c.ids.scheduleId }),
  ),
  op('payments.v3', 'listConnectorScheduleInstances', (P, c) =>
    P.listConnectorScheduleInstances({
      connectorID: c.ids.connectorId,
      scheduleID: c.ids.scheduleId,
    }),
  ),
  op(
    'payments.v3',
    'resetConnector',
    (P, c) => P.resetConnector({ connectorID: c.ids.connectorId }),
    (c) => {
      c.ids.taskId = c.json('/reset')?.data ?? c.ids.taskId;
    },
  ),
  op('payments.v3', 'getTask', (P, c) => P.getTask({ taskID: c.ids.taskId })),
  op(
    'payments.v3',
    'createAccount',
    (P, c) =>
      P.createAccount({
        reference: `acc-${c.names.tag}`,
        // The probe's dummypay connector: its payment initiations move money between its accounts.
        connectorID: c.ids.connectorId,
        createdAt: c.now,
        accountName: 'Main',
        type: 'INTERNAL',
        defaultAsset: 'EUR/2',
      }),
    (c) => {
      c.ids.accountId = c.json('/v3/accounts')?.data?.id ?? c.ids.accountId;
    },
  ),
  op('payments.v3', 'getAccount', (P, c) => P.getAccount({ accountID: c.ids.accountId })),
  op('payments.v3', 'listAccounts', (P) => P.listAccounts({})),
  op('payments.v3', 'getAccountBalances', (P, c) =>
    P.getAccountBalances({ accountID: c.ids.accountId }),
  ),
  op(
    'payments.v3',
    'createBankAccount',
    (P) =>
      P.createBankAccount({
        name: 'Alice FR',
        iban: 'FR7630006000011234567890189',
        swiftBicCode: 'AGRIFRPP',
        country: 'FR',
      }),
    (c) => {
      c.ids.bankAccountId = c.json('/v3/bank-accounts')?.data ?? c.ids.bankAccountId;
    },
  ),
  op('payments.v3', 'getBankAccount', (P, c) =>
    P.getBankAccount({ bankAccountID: c.ids.bankAccountId }),
  ),
  op('payments.v3', 'listBankAccounts', (P) => P.listBankAccounts({})),
  op('payments.v3', 'updateBankAccountMetadata', (P, c) =>
    P.updateBankAccountMetadata({
      bankAccountID: c.ids.bankAccountId,
      v3UpdateBankAccountMetadataRequest: { metadata: { k: 'v' } },
    }),
  ),
  op('payments.v3', 'forwardBankAccount', (P, c) =>
    P.forwardBankAccount({
      bankAccountID: c.ids.bankAccountId,
      v3ForwardBankAccountRequest: { connectorID: c.ids.connectorId },
    }),
  ),
  op(
    'payments.v3',
    'createPool',
    (P, c) => P.createPool({ name: `pool-${c.names.tag}`, accountIDs: [c.ids.accountId] }),
    (c) => {
      c.ids.poolId = c.json('/v3/pools')?.data ?? c.ids.poolId;
    },
  ),
  op('payments.v3', 'getPool', (P, c) => P.getPool({ poolID: c.ids.poolId })),
  op('payments.v3', 'listPools', (P) => P.listPools({})),
  op('payments.v3', 'addAccountToPool', (P, c) =>
    P.addAccountToPool({ poolID: c.ids.poolId, accountID: c.ids.accountId }),
  ),
  op('payments.v3', 'getPoolBalances', (P, c) => P.getPoolBalances({ poolID: c.ids.poolId })),
  op('payments.v3', 'getPoolBalancesLatest', (P, c) =>
    P.getPoolBalancesLatest({ poolID: c.ids.poolId }),
  ),
  // Only a dynamic pool's query changes (the reference's rule): the probe's own dynamic pool.
  op('payments.v3', 'updatePoolQuery', async (P, c) => {
    const pool = await P.createPool({
      name: `dyn-${c.names.tag}`,
      query: { $match: { name: 'x' } },
    });
    return P.updatePoolQuery({
      poolID: pool.v3CreatePoolResponse?.data ?? 'missing-pool',
      v3UpdatePoolQueryRequest: { query: { $match: { name: 'y' } } },
    });
  }),
  op('payments.v3', 'removeAccountFromPool', (P, c) =>
    P.removeAccountFromPool({ poolID: c.ids.poolId, accountID: c.ids.accountId }),
  ),
  op('payments.v3', 'deletePool', (P, c) => P.deletePool({ poolID: c.ids.poolId })),
  op(
    'payments.v3',
    'initiatePayment',
    (P, c) => P.initiatePayment({ v3InitiatePaymentRequest: initiation(c, `pi-${c.names.tag}`) }),
    (c) => {
      c.ids.paymentInitiationId =
        c.json('/payment-initiations')?.data?.paymentInitiationID ?? c.ids.paymentInitiationId;
    },
  ),
  op('payments.v3', 'listPaymentInitiations', (P) => P.listPaymentInitiations({})),
  op('payments.v3', 'getPaymentInitiation', (P, c) =>
    P.getPaymentInitiation({ paymentInitiationID: c.ids.paymentInitiationId }),
  ),
  op('payments.v3', 'approvePaymentInitiation', (P, c) =>
    P.approvePaymentInitiation({ paymentInitiationID: c.ids.paymentInitiationId }),
  ),
  // Reject and delete need an initiation waiting for validation: one of their own.
  op('payments.v3', 'rejectPaymentInitiation', async (P, c) =>
    P.rejectPaymentInitiation({
      paymentInitiationID: await waitingInitiation(P, c, `pi-rej-${c.names.tag}`),
    }),
  ),
  // Retry needs a failed one: a generic connector whose provider does not answer (a closed loopback port).
  op('payments.v3', 'retryPaymentInitiation', async (P, c) =>
    P.retryPaymentInitiation({ paymentInitiationID: await failedInitiation(P, c) }),
  ),
  op('payments.v3', 'reversePaymentInitiation', (P, c) =>
    P.reversePaymentInitiation({
      paymentInitiationID: c.ids.paymentInitiationId,
      v3ReversePaymentInitiationRequest: {
        reference: `rev-${c.names.tag}`,
        description: 'compat',
        amount: 100n,
        asset: 'EUR/2',
      },
    }),
  ),
  op('payments.v3', 'listPaymentInitiationAdjustments', (P, c) =>
    P.listPaymentInitiationAdjustments({ paymentInitiationID: c.ids.paymentInitiationId }),
  ),
  op('payments.v3', 'listPaymentInitiationRelatedPayments', (P, c) =>
    P.listPaymentInitiationRelatedPayments({ paymentInitiationID: c.ids.paymentInitiationId }),
  ),
  op('payments.v3', 'deletePaymentInitiation', async (P, c) =>
    P.deletePaymentInitiation({
      paymentInitiationID: await waitingInitiation(P, c, `pi-del-${c.names.tag}`),
    }),
  ),
  op(
    'payments.v3',
    'createPaymentServiceUser',
    (P) => P.createPaymentServiceUser({ name: 'Alice' }),
    (c) => {
      c.ids.paymentServiceUserId =
        c.json('/payment-service-users')?.data ?? c.ids.paymentServiceUserId;
    },
  ),
  op('payments.v3', 'getPaymentServiceUser', (P, c) =>
    P.getPaymentServiceUser({ paymentServiceUserID: c.ids.paymentServiceUserId }),
  ),
  op('payments.v3', 'listPaymentServiceUsers', (P) => P.listPaymentServiceUsers({})),
  op('payments.v3', 'addBankAccountToPaymentServiceUser', (P, c) =>
    P.addBankAccountToPaymentServiceUser({
      paymentServiceUserID: c.ids.paymentServiceUserId,
      bankAccountID: c.ids.bankAccountId,
    }),
  ),
  // A bank account is forwarded to a connector once: the user's own, not the one forwardBankAccount sent.
  op('payments.v3', 'forwardPaymentServiceUserBankAccount', async (P, c) => {
    const created = await P.createBankAccount({ name: 'Alice DE', iban: 'DE89370400440532013000' });
    const bankAccountID = created.v3CreateBankAccountResponse?.data ?? 'missing-bank-account';
    await P.addBankAccountToPaymentServiceUser({
      paymentServiceUserID: c.ids.paymentServiceUserId,
      bankAccountID,
    });
    return P.forwardPaymentServiceUserBankAccount({
      paymentServiceUserID: c.ids.paymentServiceUserId,
      bankAccountID,
      v3ForwardPaymentServiceUserBankAccountRequest: { connectorID: c.ids.connectorId },
    });
  }),
  op('payments.v3', 'forwardPaymentServiceUserToProvider', (P, c) =>
    P.forwardPaymentServiceUserToProvider({
      paymentServiceUserID: c.ids.paymentServiceUserId,
      connectorID: c.ids.connectorId,
    }),
  ),
  // The link is followed as the user's browser would (no token): the callback's redirect names the connection.
  op('payments.v3', 'createLinkForPaymentServiceUser', async (P, c) => {
    const res = await P.createLinkForPaymentServiceUser({
      paymentServiceUserID: c.ids.paymentServiceUserId,
      connectorID: c.ids.connectorId,
      v3PaymentServiceUserCreateLinkRequest: { clientRedirectURL: 'https://example.com/back' },
    });
    const created = res.v3PaymentServiceUserCreateLinkResponse;
    if (!created) return res;
    c.ids.linkAttemptId = created.attemptID;
    const back = await fetch(created.link, { redirect: 'manual' });
    const location = back.headers.get('location');
    const connection = location ? new URL(location).searchParams.get('connectionID') : null;
    if (connection) c.ids.connectionId = connection;
    return res;
  }),
  op('payments.v3', 'getPaymentServiceUserLinkAttemptFromConnectorID', (P, c) =>
    P.getPaymentServiceUserLinkAttemptFromConnectorID({
      paymentServiceUserID: c.ids.paymentServiceUserId,
      connectorID: c.ids.connectorId,
      attemptID: c.ids.linkAttemptId,
    }),
  ),
  op('payments.v3', 'updateLinkForPaymentServiceUserOnConnector', (P, c) =>
    P.updateLinkForPaymentServiceUserOnConnector({
      paymentServiceUserID: c.ids.paymentServiceUserId,
      connectorID: c.ids.connectorId,
      connectionID: c.ids.connectionId,
      v3PaymentServiceUserUpdateLinkRequest: { clientRedirectURL: 'https://example.com/back' },
    }),
  ),
  op('payments.v3', 'deletePaymentServiceUserConnectionFromConnectorID', (P, c) =>
    P.deletePaymentServiceUserConnectionFromConnectorID({
      paymentServiceUserID: c.ids.paymentServiceUserId,
      connectorID: c.ids.connectorId,
      connectionID: c.ids.connectionId,
    }),
  ),
  op('payments.v3', 'deletePaymentServiceUserConnector', (P, c) =>
    P.deletePaymentServiceUserConnector({
      paymentServiceUserID: c.ids.paymentServiceUserId,
      connectorID: c.ids.connectorId,
    }),
  ),
  op('payments.v3', 'deletePaymentServiceUser', (P, c) =>
    P.deletePaymentServiceUser({ paymentServiceUserID: c.ids.paymentServiceUserId }),
  ),
  op('payments.v3', 'listOrders', (P) => P.listOrders({})),
  op('payments.v3', 'getOrder', (P) => P.getOrder({ orderID: 'missing-order' })),
  op('payments.v3', 'listConversions', (P) => P.listConversions({})),
  op('payments.v3', 'getConversion', (P) =>
    P.getConversion({ conversionID: 'missing-conversion' }),
  ),
  op('payments.v3', 'uninstallConnector', (P, c) =>
    P.uninstallConnector({ connectorID: c.ids.connectorId }),
  ),

  // ---- payments v1: its own dummypay connector (v3's was uninstalled above), its accounts and records
  op('payments.v1', 'getServerInfoPayments', (P) => P.getServerInfoPayments()),
  op(
    'payments.v1',
    'createPayment',
    (P, c) =>
      P.createPayment({
        reference: `v1po-${c.names.tag}`,
        connectorID: 'bank-1',
        type: 'PAYOUT',
        status: 'PENDING',
        scheme: 'sepa credit',
        amount: 100n,
        asset: 'EUR/2',
        createdAt: c.now,
      }),
    (c) => {
      c.ids.v1PaymentId = c.json('/payments')?.data?.id ?? c.ids.v1PaymentId;
    },
  ),
  op('payments.v1', 'listPayments', (P) => P.listPayments({})),
  op('payments.v1', 'getPayment', (P, c) => P.getPayment({ paymentId: c.ids.v1PaymentId })),
  op('payments.v1', 'updateMetadata', (P, c) =>
    P.updateMetadata({ paymentId: c.ids.v1PaymentId, requestBody: { k: 'v' } }),
  ),
  op(
    'payments.v1',
    'installConnector',
    (P, c) =>
      P.installConnector({
        connector: V1_CONNECTOR,
        connectorConfig: DUMMY_CONFIG(`v1dummy-${c.names.tag}`),
      }),
    (c) => {
      c.ids.v1.connectorId =
        c.json(`/connectors/${V1_CONNECTOR}`)?.data?.connectorID ?? c.ids.v1.connectorId;
    },
  ),
  op('payments.v1', 'listAllConnectors', (P) => P.listAllConnectors()),
  op('payments.v1', 'listConfigsAvailableConnectors', (P) => P.listConfigsAvailableConnectors()),
  op('payments.v1', 'readConnectorConfig', (P) =>
    P.readConnectorConfig({ connector: V1_CONNECTOR }),
  ),
  op('payments.v1', 'readConnectorConfigV1', (P, c) =>
    P.readConnectorConfigV1({ connector: V1_CONNECTOR, connectorId: c.ids.v1.connectorId }),
  ),
  op('payments.v1', 'updateConnectorConfigV1', (P, c) =>
    P.updateConnectorConfigV1({
      connector: V1_CONNECTOR,
      connectorId: c.ids.v1.connectorId,
      connectorConfig: DUMMY_CONFIG(`v1dummy-${c.names.tag}`),
    }),
  ),
  op(
    'payments.v1',
    'listConnectorTasks',
    (P) => P.listConnectorTasks({ connector: V1_CONNECTOR }),
    (c) => {
      c.ids.v1.taskId = c.json('/tasks')?.cursor?.data?.[0]?.id ?? c.ids.v1.taskId;
    },
  ),
  op('payments.v1', 'listConnectorTasksV1', (P, c) =>
    P.listConnectorTasksV1({ connector: V1_CONNECTOR, connectorId: c.ids.v1.connectorId }),
  ),
  op('payments.v1', 'getConnectorTask', (P, c) =>
    P.getConnectorTask({ connector: V1_CONNECTOR, taskId: c.ids.v1.taskId }),
  ),
  op('payments.v1', 'getConnectorTaskV1', (P, c) =>
    P.getConnectorTaskV1({
      connector: V1_CONNECTOR,
      connectorId: c.ids.v1.connectorId,
      taskId: c.ids.v1.taskId,
    }),
  ),
  op('payments.v1', 'resetConnector', (P) => P.resetConnector({ connector: V1_CONNECTOR })),
  op('payments.v1', 'resetConnectorV1', (P, c) =>
    P.resetConnectorV1({ connector: V1_CONNECTOR, connectorId: c.ids.v1.connectorId }),
  ),
  op(
    'payments.v1',
    'createAccount',
    (P, c) => {
      c.ids.v1.accountReference = `v1acc-${c.names.tag}`;
      return P.createAccount({
        reference: c.ids.v1.accountReference,
        connectorID: c.ids.v1.connectorId,
        createdAt: c.now,
        type: 'INTERNAL',
      });
    },
    (c) => {
      c.ids.v1.accountId = c.json('/accounts')?.data?.id ?? c.ids.v1.accountId;
    },
  ),
  op('payments.v1', 'listAccountsPayments', (P) => P.listAccountsPayments({})),
  op('payments.v1', 'getAccountPayments', (P, c) =>
    P.getAccountPayments({ accountId: c.ids.v1.accountId }),
  ),
  op('payments.v1', 'getAccountBalances', (P, c) =>
    P.getAccountBalances({ accountId: c.ids.v1.accountId }),
  ),
  op(
    'payments.v1',
    'createBankAccount',
    (P) =>
      P.createBankAccount({ name: 'Alice FR', country: 'FR', iban: 'FR7630006000011234567890189' }),
    (c) => {
      c.ids.v1.bankAccountId = c.json('/bank-accounts')?.data?.id ?? c.ids.v1.bankAccountId;
    },
  ),
  op('payments.v1', 'listBankAccounts', (P) => P.listBankAccounts({})),
  op('payments.v1', 'getBankAccount', (P, c) =>
    P.getBankAccount({ bankAccountId: c.ids.v1.bankAccountId }),
  ),
  op('payments.v1', 'updateBankAccountMetadata', (P, c) =>
    P.updateBankAccountMetadata({
      bankAccountId: c.ids.v1.bankAccountId,
      updateBankAccountMetadataRequest: { metadata: { k: 'v' } },
    }),
  ),
  op('payments.v1', 'forwardBankAccount', (P, c) =>
    P.forwardBankAccount({
      bankAccountId: c.ids.v1.bankAccountId,
      forwardBankAccountRequest: { connectorID: c.ids.v1.connectorId },
    }),
  ),
  op(
    'payments.v1',
    'createPool',
    (P, c) => P.createPool({ name: `v1pool-${c.names.tag}`, accountIDs: [c.ids.v1.accountId] }),
    (c) => {
      c.ids.v1.poolId = c.json('/pools')?.data?.id ?? c.ids.v1.poolId;
    },
  ),
  op('payments.v1', 'listPools', (P) => P.listPools({})),
  op('payments.v1', 'getPool', (P, c) => P.getPool({ poolId: c.ids.v1.poolId })),
  op('payments.v1', 'addAccountToPool', (P, c) =>
    P.addAccountToPool({
      poolId: c.ids.v1.poolId,
      addAccountToPoolRequest: { accountID: c.ids.v1.accountId },
    }),
  ),
  op('payments.v1', 'getPoolBalances', (P, c) =>
    P.getPoolBalances({ poolId: c.ids.v1.poolId, at: c.now }),
  ),
  op('payments.v1', 'getPoolBalancesLatest', (P, c) =>
    P.getPoolBalancesLatest({ poolId: c.ids.v1.poolId }),
  ),
  // Only a dynamic pool's query changes (as in v3): the probe's own dynamic pool.
  op('payments.v1', 'updatePoolQuery', async (P, c) => {
    const pool = await P.createPool({
      name: `v1dyn-${c.names.tag}`,
      query: { $match: { name: 'x' } },
    });
    return P.updatePoolQuery({
      poolId: pool.poolResponse?.data.id ?? 'missing-pool',
      updatePoolQueryRequest: { query: { $match: { name: 'y' } } },
    });
  }),
  op('payments.v1', 'removeAccountFromPool', (P, c) =>
    P.removeAccountFromPool({ poolId: c.ids.v1.poolId, accountId: c.ids.v1.accountId }),
  ),
  op('payments.v1', 'deletePool', (P, c) => P.deletePool({ poolId: c.ids.v1.poolId })),
  op(
    'payments.v1',
    'createTransferInitiation',
    (P, c) => P.createTransferInitiation(transferV1(c, `ti-${c.names.tag}`)),
    (c) => {
      c.ids.v1.transferId = c.json('/transfer-initiations')?.data?.id ?? c.ids.v1.transferId;
    },
  ),
  op('payments.v1', 'listTransferInitiations', (P) => P.listTransferInitiations({})),
  op('payments.v1', 'getTransferInitiation', (P, c) =>
    P.getTransferInitiation({ transferId: c.ids.v1.transferId }),
  ),
  op('payments.v1', 'updateTransferInitiationStatus', (P, c) =>
    P.updateTransferInitiationStatus({
      transferId: c.ids.v1.transferId,
      updateTransferInitiationStatusRequest: { status: 'VALIDATED' },
    }),
  ),
  // Retry needs a failed initiation: v3's way to make one (a provider that does not answer).
  {
    service: 'payments.v1',
    op: 'retryTransferInitiation',
    call: async (sdk, c) =>
      serviceApi(sdk, 'payments.v1').retryTransferInitiation({
        transferId: await failedInitiation(serviceApi(sdk, 'payments.v3'), c, 'v1-'),
      }),
  },
  op('payments.v1', 'reverseTransferInitiation', (P, c) =>
    P.reverseTransferInitiation({
      transferId: c.ids.v1.transferId,
      reverseTransferInitiationRequest: {
        reference: `rev-${c.names.tag}`,
        description: 'compat',
        amount: 100n,
        asset: 'EUR/2',
        metadata: {},
      },
    }),
  ),
  op('payments.v1', 'deleteTransferInitiation', async (P, c) => {
    const waiting = await P.createTransferInitiation(transferV1(c, `ti-del-${c.names.tag}`));
    return P.deleteTransferInitiation({
      transferId: waiting.transferInitiationResponse?.data.id ?? 'missing-transfer',
    });
  }),
  op('payments.v1', 'connectorsTransfer', (P, c) =>
    P.connectorsTransfer({
      connector: V1_CONNECTOR,
      transferRequest: {
        amount: 100n,
        asset: 'EUR/2',
        source: c.ids.v1.accountReference,
        destination: c.ids.v1.accountReference,
      },
    }),
  ),
  op('payments.v1', 'uninstallConnectorV1', (P, c) =>
    P.uninstallConnectorV1({ connector: V1_CONNECTOR, connectorId: c.ids.v1.connectorId }),
  ),
  // By provider alone: a connector of its own, the only dummypay one left.
  op('payments.v1', 'uninstallConnector', async (P, c) => {
    await P.installConnector({
      connector: V1_CONNECTOR,
      connectorConfig: DUMMY_CONFIG(`v1dummy-last-${c.names.tag}`),
    });
    return P.uninstallConnector({ connector: V1_CONNECTOR });
  }),

  // ---- webhook deliveries, once the writes above produced events; the config goes last
  op(
    'webhooks.v1',
    'getDeliveries',
    async (W, c) => {
      await c.waitForDelivery();
      return W.getDeliveries({ configId: c.ids.configId, pageSize: 10 });
    },
    (c) => {
      c.ids.deliveryId = c.json('/deliveries')?.cursor?.data?.[0]?.id ?? c.ids.deliveryId;
    },
  ),
  op('webhooks.v1', 'getDelivery', (W, c) => W.getDelivery({ id: c.ids.deliveryId })),
  op('webhooks.v1', 'getDeliveryAttempts', (W, c) =>
    W.getDeliveryAttempts({ id: c.ids.deliveryId }),
  ),
  op('webhooks.v1', 'replayDelivery', (W, c) =>
    W.replayDelivery({ id: c.ids.deliveryId, idempotencyKey: `replay-${c.names.tag}` }),
  ),
  op('webhooks.v1', 'replayDeliveries', (W, c) =>
    W.replayDeliveries({
      idempotencyKey: `replays-${c.names.tag}`,
      replayDeliveriesRequest: {
        createdAtFrom: new Date(c.now.getTime() - 3600_000),
        configIds: [c.ids.configId],
      },
    }),
  ),
  op('webhooks.v1', 'deleteConfig', (W, c) => W.deleteConfig({ id: c.ids.configId })),

  // ---- the root
  op('sdk', 'getVersions', (S) => S.getVersions()),
];
