import { describe, expect, it } from 'vitest';
import {
  configKey,
  configsByCreation,
  deliveryKeys,
  endpointPartition,
  filterPartition,
  indexPartitions,
  pendingPartitionEnvironment,
  replayRequestKey,
  subscriptionKey,
  subscriptionsVersionKey,
} from './keys.js';

describe('webhooks keys', () => {
  it('put every partition key, of the table and of gsi1, in its environment', () => {
    const env = 'sandbox-1';
    const partitions = [
      configKey(env, 'c').pk,
      configsByCreation(env),
      endpointPartition(env, 'digest'),
      subscriptionKey(env, 'ledger.saved_metadata', 'c').pk,
      subscriptionsVersionKey(env).pk,
      deliveryKeys.delivery(env, 'd').pk,
      deliveryKeys.list(env),
      deliveryKeys.attempt(env, 'd', 1).pk,
      ...indexPartitions(env, 'c', 'pending'),
      replayRequestKey(env, 'key').pk,
    ];
    for (const pk of partitions) expect(pk.startsWith('E#sandbox-1#'), pk).toBe(true);
    // The same names in another environment are other partitions.
    expect(replayRequestKey('prod', 'key').pk).not.toBe(replayRequestKey(env, 'key').pk);
    expect(subscriptionsVersionKey('prod')).toEqual({ pk: 'E#prod#SUBSCRIPTIONS', sk: 'VERSION' });
  });

  it("recognises an environment's pending partition, and nothing else", () => {
    expect(pendingPartitionEnvironment(filterPartition('prod', { status: 'pending' }))).toBe(
      'prod',
    );
    for (const pk of [
      filterPartition('prod', { status: 'failed' }),
      filterPartition('prod', { configId: 'c', status: 'pending' }),
      'DELIVERIES#status=pending',
      'E#Bad#DELIVERIES#status=pending',
    ])
      expect(pendingPartitionEnvironment(pk), pk).toBeUndefined();
  });
});
