import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Account } from '../domain/account.js';
import type { BankAccount } from '../domain/bank-account.js';
import type { Connector } from '../domain/connectors/connector.js';
import type { Task } from '../domain/connectors/tasks.js';
import type { ForwardedUser, LinkAttempt } from '../domain/open-banking.js';
import type { PaymentInitiation } from '../domain/payment-initiation.js';
import type { PaymentServiceUser } from '../domain/payment-service-user.js';
import type { Pool } from '../domain/pool.js';
import { BalanceStore } from './balance-store.js';
import {
  ACCOUNT_KIND,
  BANK_ACCOUNT_KIND,
  CONNECTOR_KIND,
  PAYMENT_INITIATION_KIND,
  POOL_KIND,
  PSU_KIND,
  TASK_KIND,
} from './kinds.js';
import { FORWARDED_USER_KIND, LINK_ATTEMPT_KIND } from './open-banking-kinds.js';
import { PaymentStore } from './payment-store.js';
import { RecordStore, type RecordStoreOptions } from './record-store.js';
import { ScheduleStore } from './schedule-store.js';

/** Every store of one environment's payments data. */
export interface PaymentsStores {
  environment: string;
  doc: DynamoDBDocumentClient;
  now: () => number;
  payments: PaymentStore;
  accounts: RecordStore<Account>;
  balances: BalanceStore;
  bankAccounts: RecordStore<BankAccount>;
  users: RecordStore<PaymentServiceUser>;
  pools: RecordStore<Pool>;
  connectors: RecordStore<Connector>;
  schedules: ScheduleStore;
  tasks: RecordStore<Task>;
  initiations: RecordStore<PaymentInitiation>;
  forwardedUsers: RecordStore<ForwardedUser>;
  linkAttempts: RecordStore<LinkAttempt>;
  /** The raw options, for commands that write across stores. */
  options: RecordStoreOptions;
}

export interface StoresConfig {
  doc: DynamoDBDocumentClient;
  table: string;
  eventsTable: string;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export function paymentsStores(config: StoresConfig, environment: string): PaymentsStores {
  const options: RecordStoreOptions = {
    doc: config.doc,
    table: config.table,
    eventsTable: config.eventsTable,
    environment,
    now: config.now ?? Date.now,
    sleep: config.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
  };
  return {
    environment,
    doc: config.doc,
    now: options.now,
    payments: new PaymentStore(options),
    accounts: new RecordStore(ACCOUNT_KIND, options),
    balances: new BalanceStore(options),
    bankAccounts: new RecordStore(BANK_ACCOUNT_KIND, options),
    users: new RecordStore(PSU_KIND, options),
    pools: new RecordStore(POOL_KIND, options),
    connectors: new RecordStore(CONNECTOR_KIND, options),
    schedules: new ScheduleStore(options),
    tasks: new RecordStore(TASK_KIND, options),
    initiations: new RecordStore(PAYMENT_INITIATION_KIND, options),
    forwardedUsers: new RecordStore(FORWARDED_USER_KIND, options),
    linkAttempts: new RecordStore(LINK_ATTEMPT_KIND, options),
    options,
  };
}
