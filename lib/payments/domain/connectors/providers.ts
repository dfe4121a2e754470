import * as v from 'valibot';
import { ValidationError } from '../../../errors/index.js';
import { boundedText } from '../../../validation/common.js';
import { validate } from '../../../validation/validate.js';
import { formatDuration, parseDuration } from './duration.js';
import { type LedgerLink, ledgerLinkOf, ledgerLinkSchema } from './ledger-link.js';

/** What a connector can do (the reference's capability names). */
export type Capability =
  | 'FETCH_ACCOUNTS'
  | 'FETCH_BALANCES'
  | 'FETCH_EXTERNAL_ACCOUNTS'
  | 'FETCH_PAYMENTS'
  | 'CREATE_TRANSFER'
  | 'CREATE_PAYOUT';

/** The periodic tasks a connector runs, each on its own schedule. */
export const TASK_TYPES = ['FETCH_ACCOUNTS', 'FETCH_EXTERNAL_ACCOUNTS', 'FETCH_PAYMENTS'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

/** The shortest polling period accepted: a provider is not polled more often than this. */
export const MIN_POLLING_PERIOD_MS = 30_000;
export const DEFAULT_POLLING_PERIOD = '30m';
export const DEFAULT_PAGE_SIZE = 25;

/** A connector's validated configuration: the common fields, then the provider's own. */
export interface ConnectorConfig {
  name: string;
  pollingPeriodMs: number;
  pageSize: number;
  /** The provider's fields, as given (secrets included: only `configView` is ever answered). */
  fields: Record<string, unknown>;
  /**
   * Beyond the reference: the ledger its payments are recorded in (ledger-link.ts). `false` only in a parsed update
   * body: remove the link (absent there: keep it, since clients that do not know the field send it back without;
   * `null` cannot say it, the platform reads a null field as absent).
   */
  ledgerLink?: LedgerLink | false;
}

interface FieldSpec {
  dataType: 'string' | 'boolean' | 'integer' | 'duration';
  required: boolean;
  defaultValue?: string;
  /** Never answered back: masked in every view. */
  secret?: boolean;
}

export interface ProviderSpec {
  /** The provider's name in connector ids and records (lowercase). */
  name: string;
  /** The `provider` value of its config bodies (the SDK's literal). */
  configProvider: string;
  capabilities: Capability[];
  tasks: TaskType[];
  fields: Record<string, FieldSpec>;
  schema: v.GenericSchema<unknown, Record<string, unknown>>;
}

const COMMON: Record<string, FieldSpec> = {
  name: { dataType: 'string', required: true },
  pollingPeriod: { dataType: 'duration', required: false, defaultValue: DEFAULT_POLLING_PERIOD },
  pageSize: { dataType: 'integer', required: false, defaultValue: String(DEFAULT_PAGE_SIZE) },
};

const httpsOrLoopback = v.pipe(
  v.string('must be a string'),
  v.url('must be a URL'),
  v.check(
    (u) =>
      /^https:\/\//i.test(u) || /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/i.test(u),
    'must be an https URL (http only to a loopback address)',
  ),
);

const COMMON_ENTRIES = {
  name: v.pipe(boundedText(500), v.minLength(3, 'must be at least 3 characters')),
  pollingPeriod: v.optional(v.string('must be a string')),
  pageSize: v.optional(
    v.pipe(v.number('must be a number'), v.integer(), v.minValue(1), v.maxValue(1000)),
  ),
  provider: v.optional(v.string()),
  // Checked on its own (parseConnectorConfig), so that its errors name its fields.
  ledgerLink: v.optional(v.unknown()),
};

export const PROVIDERS: Record<string, ProviderSpec> = {
  generic: {
    name: 'generic',
    configProvider: 'Generic',
    capabilities: [
      'FETCH_ACCOUNTS',
      'FETCH_BALANCES',
      'FETCH_EXTERNAL_ACCOUNTS',
      'FETCH_PAYMENTS',
      'CREATE_TRANSFER',
      'CREATE_PAYOUT',
    ],
    tasks: ['FETCH_ACCOUNTS', 'FETCH_EXTERNAL_ACCOUNTS', 'FETCH_PAYMENTS'],
    fields: {
      ...COMMON,
      apiKey: { dataType: 'string', required: true, secret: true },
      endpoint: { dataType: 'string', required: true },
    },
    schema: v.strictObject({
      ...COMMON_ENTRIES,
      apiKey: v.pipe(
        v.string('must be a string'),
        v.minLength(1, 'must not be empty'),
        v.maxLength(4096),
      ),
      endpoint: httpsOrLoopback,
    }),
  },
  dummypay: {
    name: 'dummypay',
    configProvider: 'Dummypay',
    capabilities: [
      'FETCH_ACCOUNTS',
      'FETCH_BALANCES',
      'FETCH_EXTERNAL_ACCOUNTS',
      'FETCH_PAYMENTS',
      'CREATE_TRANSFER',
      'CREATE_PAYOUT',
    ],
    tasks: ['FETCH_ACCOUNTS', 'FETCH_EXTERNAL_ACCOUNTS', 'FETCH_PAYMENTS'],
    fields: {
      ...COMMON,
      directory: { dataType: 'string', required: true },
      linkFlowError: { dataType: 'boolean', required: false },
      updateLinkFlowError: { dataType: 'boolean', required: false },
    },
    schema: v.strictObject({
      ...COMMON_ENTRIES,
      directory: v.pipe(boundedText(1024), v.minLength(1, 'must not be empty')),
      linkFlowError: v.optional(v.boolean()),
      updateLinkFlowError: v.optional(v.boolean()),
    }),
  },
};

/** The provider a path names (`generic`, `Generic`, `GENERIC`...), or a 400 listing the known ones. */
export function providerSpec(raw: string): ProviderSpec {
  const spec = PROVIDERS[raw.toLowerCase().replace(/[-_]/g, '')];
  if (!spec)
    throw new ValidationError(
      `connector: unknown provider ${raw.slice(0, 64)} (known: ${Object.keys(PROVIDERS).join(', ')})`,
    );
  return spec;
}

/** A config body checked against its provider: common fields parsed, the provider's own kept as given. */
export function parseConnectorConfig(spec: ProviderSpec, body: unknown): ConnectorConfig {
  const parsed = validate(spec.schema, body, 'body');
  const { name, pollingPeriod, pageSize, provider, ledgerLink, ...fields } = parsed as Record<
    string,
    unknown
  > & {
    name: string;
    pollingPeriod?: string;
    pageSize?: number;
    provider?: string;
    ledgerLink?: unknown;
  };
  if (provider !== undefined && provider.toLowerCase() !== spec.name)
    throw new ValidationError(`body.provider: must be ${spec.configProvider}`);
  const pollingPeriodMs = parseDuration(
    pollingPeriod ?? DEFAULT_POLLING_PERIOD,
    'body.pollingPeriod',
  );
  if (pollingPeriodMs < MIN_POLLING_PERIOD_MS)
    throw new ValidationError(
      `body.pollingPeriod: must be at least ${formatDuration(MIN_POLLING_PERIOD_MS)}`,
    );
  return {
    name,
    pollingPeriodMs,
    pageSize: pageSize ?? DEFAULT_PAGE_SIZE,
    fields,
    ...(ledgerLink !== undefined
      ? {
          ledgerLink:
            ledgerLink === false
              ? false
              : ledgerLinkOf(validate(ledgerLinkSchema, ledgerLink, 'body.ledgerLink')),
        }
      : {}),
  };
}

/** What a secret reads as. */
export const MASK = '********';

/** The config as the API answers it: its provider's literal, secrets masked (never echoed). */
export function configView(spec: ProviderSpec, config: ConnectorConfig): Record<string, unknown> {
  const fields = Object.fromEntries(
    Object.entries(config.fields).map(([k, value]) => [k, spec.fields[k]?.secret ? MASK : value]),
  );
  return {
    provider: spec.configProvider,
    name: config.name,
    pollingPeriod: formatDuration(config.pollingPeriodMs),
    pageSize: config.pageSize,
    ...fields,
    ...(config.ledgerLink ? { ledgerLink: { ...config.ledgerLink, clientSecret: MASK } } : {}),
  };
}

/** `GET /v3/connectors/configs`: each provider's fields, their types, whether required, defaults. */
export function providerConfigs(): Record<string, Record<string, Omit<FieldSpec, 'secret'>>> {
  return Object.fromEntries(
    Object.values(PROVIDERS).map((spec) => [
      spec.name,
      Object.fromEntries(Object.entries(spec.fields).map(([k, { secret: _s, ...f }]) => [k, f])),
    ]),
  );
}
