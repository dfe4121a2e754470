import { startFauxqs } from 'fauxqs';

export interface SqsLocal {
  endpoint: string;
  stop(): Promise<void>;
}

/** The in-process SQS emulator. Its queues live in memory: messages do not survive a restart. */
export async function startSqsLocal(): Promise<SqsLocal> {
  const server = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
  return { endpoint: server.address, stop: () => server.stop() };
}
