import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { decodeCursor, MAX_PAGE_SIZE } from '../../pagination/cursor.js';
import { type KeyedWake, pipelinesList, wakeOfKeys } from '../store/keys.js';
import type { ExportStores } from '../stores.js';
import type { PipelineRef } from './drain-pipeline.js';

/** The parts of a ledger table's stream record (Lambda's or the Streams API's) the wake reads. */
export interface WakeRecord {
  eventName?: string;
  dynamodb?: {
    Keys?: Record<string, unknown>;
    NewImage?: Record<string, unknown>;
  };
}

/**
 * What a batch of a ledger table's stream wakes, each once: the pipelines of a ledger that logged something, and a
 * pipeline that was created, started or reset (it is running: its new image says `enabled`). The stream only
 * says *that* there is work: the worker reads the log itself from the cursor.
 */
export function wakesOf(records: readonly WakeRecord[]): KeyedWake[] {
  const wakes = new Map<string, KeyedWake>();
  for (const record of records) {
    if (record.eventName === 'REMOVE') continue;
    const keys = record.dynamodb?.Keys as Record<string, AttributeValue> | undefined;
    const wake = wakeOfKeys(keys?.pk?.S ?? '', keys?.sk?.S ?? '');
    if (!wake) continue;
    if ('id' in wake) {
      const image = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
      if (image?.enabled?.BOOL !== true) continue;
    }
    const key =
      'id' in wake
        ? `${wake.environment}/${wake.ledger}/${wake.id}`
        : `${wake.environment}/${wake.ledger}`;
    wakes.set(key, wake);
  }
  return [...wakes.values()];
}

/** The running pipelines a wake names: itself, or every running pipeline of the ledger (a page at a time). */
export async function pipelinesOfWake(
  wake: KeyedWake,
  stores: ExportStores,
): Promise<PipelineRef[]> {
  const { environment, ledger } = wake;
  if ('id' in wake) return [{ environment, ledger, id: wake.id }];
  const { pipelines } = stores(environment);
  const refs: PipelineRef[] = [];
  let next: string | undefined;
  do {
    const page = await pipelines.list(ledger, {
      pageSize: MAX_PAGE_SIZE,
      ...(next ? { cursor: decodeCursor(next, pipelinesList(ledger)) } : {}),
    });
    for (const p of page.data) if (p.enabled) refs.push({ environment, ledger, id: p.id });
    next = page.next;
  } while (next);
  return refs;
}
