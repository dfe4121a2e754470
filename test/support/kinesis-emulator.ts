import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import {
  CreateStreamCommand,
  DescribeStreamSummaryCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  KinesisClient,
  ListShardsCommand,
} from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { parseJson } from '../../lib/json/bigint-json.js';

/** kinesalite's programmatic API, as this suite uses it (the package ships no types). */
type Kinesalite = (options: Record<string, unknown>) => Server;

/** A record as read back from a shard. */
export interface ReadRecord {
  shardId: string;
  partitionKey: string;
  sequenceNumber: string;
  /** The record's data, a JSON array of logs, integers read as bigint. */
  logs: Array<Record<string, unknown>>;
}

/**
 * A Kinesis emulator from npm (kinesalite, in memory) on a free loopback port, and a Kinesis client of the AWS
 * SDK pointed at it, with helpers to create a stream and read every record back, shard by shard.
 */
export async function startKinesisEmulator() {
  const kinesalite = createRequire(import.meta.url)('kinesalite') as Kinesalite;
  // Streams become ACTIVE at once: the tests wait for nothing.
  const server = kinesalite({ createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const credentials = { accessKeyId: 'kinesalite', secretAccessKey: 'kinesalite' };
  const client = new KinesisClient({
    region: 'us-east-1',
    endpoint,
    credentials,
    requestHandler: new NodeHttpHandler(),
  });
  return {
    endpoint,
    credentials,
    client,
    async createStream(name: string, shards: number): Promise<void> {
      await client.send(new CreateStreamCommand({ StreamName: name, ShardCount: shards }));
      for (;;) {
        const { StreamDescriptionSummary } = await client.send(
          new DescribeStreamSummaryCommand({ StreamName: name }),
        );
        if (StreamDescriptionSummary?.StreamStatus === 'ACTIVE') return;
      }
    },
    /** Every record of the stream, shard by shard, each shard's in sequence order. */
    async records(name: string): Promise<ReadRecord[]> {
      const out: ReadRecord[] = [];
      const { Shards } = await client.send(new ListShardsCommand({ StreamName: name }));
      for (const shard of Shards ?? []) {
        let { ShardIterator: iterator } = await client.send(
          new GetShardIteratorCommand({
            StreamName: name,
            ShardId: shard.ShardId,
            ShardIteratorType: 'TRIM_HORIZON',
          }),
        );
        while (iterator) {
          const page = await client.send(new GetRecordsCommand({ ShardIterator: iterator }));
          for (const r of page.Records ?? [])
            out.push({
              shardId: shard.ShardId!,
              partitionKey: r.PartitionKey!,
              sequenceNumber: r.SequenceNumber!,
              logs: parseJson(Buffer.from(r.Data!).toString('utf8')) as ReadRecord['logs'],
            });
          iterator = (page.Records ?? []).length > 0 ? page.NextShardIterator : undefined;
        }
      }
      return out;
    },
    async close(): Promise<void> {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
