import { apiGet } from '../api.js';
import { Time, useLoad } from '../components.js';
import type { Route } from '../router.js';
import { LedgerList } from './ledger-list.js';

interface Pipeline {
  id: string;
  exporterID: string;
  createdAt: string;
  enabled: boolean;
  lastLogID?: number;
  error?: string;
}

/** What a pipeline is doing: stopped, failing (with why), or running. */
export function pipelineState(p: Pipeline): string {
  if (!p.enabled) return 'stopped';
  return p.error === undefined ? 'running' : `failing: ${p.error}`;
}

/** Log entries the ledger holds past what a pipeline has exported (all of them before its first batch). */
export function pipelineLag(p: Pipeline, newestLogId: number | undefined): number | undefined {
  if (newestLogId === undefined) return undefined;
  return Math.max(0, newestLogId - Number(p.lastLogID ?? 0));
}

/**
 * A ledger's pipelines (docs/api.md, exporters and pipelines): each one's exporter, state and how far it is behind
 * the ledger's log, in entries. Started, stopped and reset through the API or `platform pipelines`.
 */
export function Pipelines({ ledger, route }: { ledger: string; route: Route }) {
  // The ledger's newest log entry (the log lists newest first): what each pipeline's lag is counted against.
  const [newest] = useLoad(
    (signal) =>
      apiGet<{ cursor: { data: Array<{ id: number }> } }>(
        `/api/ledger/v2/${encodeURIComponent(ledger)}/logs`,
        { pageSize: '1' },
        signal,
      ),
    [ledger],
  );
  const newestLogId =
    newest.state === 'ready' ? Number(newest.value.cursor.data[0]?.id ?? 0) : undefined;
  return (
    <LedgerList<Pipeline>
      ledger={ledger}
      route={route}
      tab="pipelines"
      empty="No pipelines for this ledger (create one with POST /v2/<ledger>/pipelines or `platform pipelines`)."
    >
      {(rows) => (
        <table>
          <thead>
            <tr>
              <th>State</th>
              <th>Exported up to log</th>
              <th>Behind (entries)</th>
              <th>Exporter</th>
              <th>Created</th>
              <th>Id</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.id} data-pipeline={p.id}>
                <td class={p.error !== undefined && p.enabled ? 'state failing' : 'state'}>
                  {pipelineState(p)}
                </td>
                <td class="exported">{p.lastLogID === undefined ? '—' : `#${p.lastLogID}`}</td>
                <td class="lag">{pipelineLag(p, newestLogId) ?? '…'}</td>
                <td class="muted">{p.exporterID}</td>
                <td>
                  <Time value={p.createdAt} />
                </td>
                <td class="muted">{p.id}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </LedgerList>
  );
}
