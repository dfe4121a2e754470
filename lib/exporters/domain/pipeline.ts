import { randomUUID } from 'node:crypto';
import { ValidationError } from '../../errors/index.js';

/** A pipeline by name: the environment and ledger it belongs to, and its id. */
export interface PipelineRef {
  environment: string;
  ledger: string;
  id: string;
}

/**
 * A pipeline: one ledger's log sent through one exporter, from a cursor (the reference's `V2Pipeline`). At most one
 * pipeline per ledger and exporter. `lastLogId` is the last log id the exporter has accepted; the next batch starts
 * right after it. `epoch` counts resets: a worker that read the pipeline before a reset cannot move its cursor.
 */
export interface Pipeline {
  id: string;
  ledger: string;
  exporterId: string;
  createdAt: string;
  enabled: boolean;
  lastLogId?: number;
  /** The last failure, until a batch succeeds. */
  error?: string;
  /** Failed attempts in a row (for the back-off), 0 after a success. */
  failures: number;
  /** Epoch milliseconds before which a failed pipeline is not tried again. */
  retryAtMs?: number;
  epoch: number;
}

export function newPipeline(ledger: string, exporterId: string, createdAt: string): Pipeline {
  // Enabled from the start, as the reference starts a pipeline when it creates it.
  return { id: randomUUID(), ledger, exporterId, createdAt, enabled: true, failures: 0, epoch: 0 };
}

/** The pipeline as the API shows it: the reference's fields, and `error` while it is failing. */
export function pipelineView(p: Pipeline) {
  return {
    id: p.id,
    ledger: p.ledger,
    exporterID: p.exporterId,
    createdAt: p.createdAt,
    enabled: p.enabled,
    ...(p.lastLogId !== undefined ? { lastLogID: p.lastLogId } : {}),
    ...(p.error !== undefined ? { error: p.error } : {}),
  };
}

/** Start: a running pipeline cannot be started again (the reference's "already started", a 400). */
export function started(p: Pipeline): Pipeline {
  if (p.enabled) throw new ValidationError(`pipeline '${p.id}' already started`);
  return { ...p, enabled: true, failures: 0, retryAtMs: undefined };
}

/** Stop: the worker sees it before its next batch. Stopping a stopped pipeline changes nothing. */
export function stopped(p: Pipeline): Pipeline {
  return { ...p, enabled: false };
}

/**
 * Reset: from the first log again, running (as the reference's reset leaves it enabled). The new epoch keeps a
 * worker that read the old cursor from moving it.
 */
export function reset(p: Pipeline): Pipeline {
  return {
    ...p,
    enabled: true,
    lastLogId: undefined,
    error: undefined,
    failures: 0,
    retryAtMs: undefined,
    epoch: p.epoch + 1,
  };
}

/** Waits after the n-th failure in a row: 1 s, 2 s, 4 s … at most 5 minutes. */
export const FIRST_RETRY_MS = 1000;
export const MAX_RETRY_MS = 5 * 60 * 1000;
export function retryDelayMs(failures: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(20, Math.max(0, failures - 1)));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isPipelineId = (value: string): boolean => UUID.test(value);
