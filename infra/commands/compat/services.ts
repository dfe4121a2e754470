import type { SDK } from '@formance/formance-sdk';

/**
 * The SDK services the probe covers, in the order the SDK lists them (and the report prints them); `sdk` is the
 * root object, whose only operation is getVersions.
 */
export const SERVICES = [
  'auth.v1',
  'ledger.v2',
  'ledger.v1',
  'webhooks.v1',
  'payments.v3',
  'payments.v1',
  'sdk',
] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface ServiceApis {
  'auth.v1': SDK['auth']['v1'];
  'ledger.v2': SDK['ledger']['v2'];
  'ledger.v1': SDK['ledger']['v1'];
  'webhooks.v1': SDK['webhooks']['v1'];
  'payments.v3': SDK['payments']['v3'];
  'payments.v1': SDK['payments']['v1'];
  sdk: SDK;
}

/** The names of an SDK object's operations: its methods that return a promise. */
export type OperationName<T> = {
  [K in keyof T]: T[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof T] &
  string;
export type ServiceOperation = {
  [S in ServiceName]: `${S}.${OperationName<ServiceApis[S]>}`;
}[ServiceName];

/** One service's SDK object. */
export function serviceApi<S extends ServiceName>(sdk: SDK, service: S): ServiceApis[S] {
  if (service === 'sdk') return sdk as ServiceApis[S];
  const [group, version] = service.split('.') as [keyof SDK, string];
  return (sdk[group] as unknown as Record<string, unknown>)[version] as ServiceApis[S];
}

/**
 * The operations an SDK object offers, in the SDK's own order: the functions on its class prototype (getters
 * such as `sdk.ledger` are sub-services, not operations).
 */
export function sdkOperations(api: object): string[] {
  const proto = Object.getPrototypeOf(api) as object;
  return Object.entries(Object.getOwnPropertyDescriptors(proto))
    .filter(([name, d]) => name !== 'constructor' && typeof d.value === 'function')
    .map(([name]) => name);
}
