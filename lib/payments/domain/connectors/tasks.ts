import type { TaskType } from './providers.js';

/** One periodic task of a connector (fetch accounts, external accounts, payments) and where it stands. */
export interface Schedule {
  id: string;
  connectorID: string;
  taskType: TaskType;
  createdAt: string;
  /** The provider-side cursor the next run resumes from (the provider's own JSON). */
  state: Record<string, unknown>;
  /** When the next run is due (epoch ms). */
  nextRunAtMs: number;
  pausedAt?: string;
}

/** One run of a schedule. */
export interface Instance {
  id: string;
  scheduleID: string;
  connectorID: string;
  createdAt: string;
  updatedAt: string;
  terminated: boolean;
  terminatedAt?: string;
  error?: string;
}

export const TASK_STATUSES = ['PROCESSING', 'SUCCEEDED', 'FAILED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** A one-off job the API started (uninstall, reset) and its outcome. */
export interface Task {
  id: string;
  /** Empty for a task of no connector (a user's deletion). */
  connectorID: string;
  status: TaskStatus;
  createdAt: string;
  updatedAt: string;
  error?: string;
}

/** The schedule id of a connector's task: readable, and unique per connector and task. */
export const scheduleId = (connectorID: string, taskType: TaskType): string =>
  `${taskType.toLowerCase().replace(/_/g, '-')}.${connectorID}`;

export function newSchedules(
  connectorID: string,
  tasks: readonly TaskType[],
  createdAt: string,
  nowMs: number,
): Schedule[] {
  return tasks.map((taskType) => ({
    id: scheduleId(connectorID, taskType),
    connectorID,
    taskType,
    createdAt,
    state: {},
    nextRunAtMs: nowMs,
  }));
}

export const scheduleView = (s: Schedule) => ({
  id: s.id,
  connectorID: s.connectorID,
  createdAt: s.createdAt,
  ...(s.pausedAt !== undefined ? { pausedAt: s.pausedAt } : {}),
});

export const instanceView = (i: Instance) => ({
  id: i.id,
  scheduleID: i.scheduleID,
  connectorID: i.connectorID,
  createdAt: i.createdAt,
  updatedAt: i.updatedAt,
  terminated: i.terminated,
  ...(i.terminatedAt !== undefined ? { terminatedAt: i.terminatedAt } : {}),
  ...(i.error !== undefined ? { error: i.error } : {}),
});

export const taskView = (t: Task) => ({
  id: t.id,
  ...(t.connectorID !== '' ? { connectorID: t.connectorID } : {}),
  status: t.status,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
  ...(t.error !== undefined ? { error: t.error } : {}),
});
