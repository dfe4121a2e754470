import { NotFoundError, ValidationError } from '../../errors/index.js';
import { formatInstant } from '../../time/instant.js';
import type { LedgerRecord, MappingWriteRequest } from '../domain/change.js';
import { MAX_MAPPING_BYTES, type Mapping, mappingJson } from '../domain/mapping.js';
import {
  type BalanceMonitor,
  type CreateMonitorInput,
  MAX_MONITORS,
  monitorView,
} from '../domain/monitors.js';

/**
 * POST /v2/<ledger>/monitors: the monitor is in force from the HEAD version this write commits. Monitors share the
 * item and version of the limits and the v1 mapping (docs/decisions/ledger.md, "Balance monitors"), so every write decides
 * its crossings under exactly the monitors in force when it commits. The contracts and limits are kept.
 */
export function createMonitorWrite(
  ledger: LedgerRecord,
  input: CreateMonitorInput,
  id: string,
): MappingWriteRequest<BalanceMonitor> {
  return {
    ledger,
    decide: ({ now, current }) => {
      const monitors = current?.monitors ?? [];
      if (monitors.length >= MAX_MONITORS)
        throw new ValidationError(
          `the ledger has ${monitors.length} monitors; at most ${MAX_MONITORS}`,
        );
      const monitor: BalanceMonitor = {
        id,
        account: input.account,
        asset: input.asset,
        condition: input.condition,
        metadata: input.metadata ?? {},
        createdAt: formatInstant(now),
      };
      return { result: monitorView(monitor), mapping: sized(current, [...monitors, monitor]) };
    },
  };
}

/** DELETE /v2/<ledger>/monitors/<id>: from the HEAD version it commits, the monitor triggers no more. */
export function deleteMonitorWrite(
  ledger: LedgerRecord,
  id: string,
): MappingWriteRequest<undefined> {
  return {
    ledger,
    decide: ({ current }) => {
      const monitors = current?.monitors ?? [];
      if (!monitors.some((m) => m.id === id))
        throw new NotFoundError(`monitor ${id.slice(0, 64)} not found`);
      return {
        result: undefined,
        mapping: sized(
          current,
          monitors.filter((m) => m.id !== id),
        ),
      };
    },
  };
}

/** The item with these monitors, refused when it would outgrow what one mapping item may hold. */
function sized(current: Mapping | undefined, monitors: BalanceMonitor[]): Mapping {
  const mapping: Mapping = {
    contracts: current?.contracts ?? [],
    ...(current?.limits ? { limits: current.limits } : {}),
    monitors,
  };
  const size = Buffer.byteLength(mappingJson(mapping));
  if (size > MAX_MAPPING_BYTES)
    throw new ValidationError(
      `the ledger's contracts, limits and monitors would take ${size} bytes; at most ${MAX_MAPPING_BYTES}`,
    );
  return mapping;
}
