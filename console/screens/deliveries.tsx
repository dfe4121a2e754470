import { useEffect, useState } from 'preact/hooks';
import { ApiError, apiGet, apiList, apiPost } from '../api.js';
import { Breadcrumbs, ErrorBox, Pager, Show, Time, useLoad } from '../components.js';
import { prettyJson } from '../format.js';
import { href, type Route } from '../router.js';
import { PAGE_SIZE } from './ledgers.js';

interface Delivery {
  id: string;
  configID: string;
  eventID: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  attemptCount: bigint;
  replayGeneration?: bigint;
  nextAttemptAt?: string;
  lastStatusCode?: bigint;
  lastError?: string;
  payload?: string;
  createdAt: string;
  updatedAt: string;
}

interface Attempt {
  id: string;
  attemptNumber: bigint;
  replayGeneration: bigint;
  outcome: string;
  statusCode: bigint;
  durationMillis?: bigint;
  error?: string;
  responseExcerpt?: string;
  createdAt: string;
}

const STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

/** How often a delivery being replayed is read again until its new attempt shows. */
const REPLAY_POLL_MS = 1000;

/** A configuration's name for the breadcrumbs (its id until the name is known, or if it has none). */
function useConfigLabel(configId: string): string {
  const [config] = useLoad(
    (signal) =>
      apiGet<{ data: { name?: string } }>(
        `/api/webhooks/configs/${encodeURIComponent(configId)}`,
        {},
        signal,
      ),
    [configId],
  );
  return (config.state === 'ready' && config.value.data.name) || configId;
}

const statusBadge = (status: string) =>
  status === 'succeeded' ? 'ok' : status === 'pending' ? 'info' : 'warn';

/** One configuration's deliveries, newest first. */
export function Deliveries({ configId, route }: { configId: string; route: Route }) {
  const cursor = route.query.get('cursor') ?? undefined;
  const status = route.query.get('status') ?? undefined;
  const [deliveries] = useLoad(
    (signal) =>
      apiList<Delivery>(
        '/api/webhooks/deliveries',
        { pageSize: PAGE_SIZE, configId, ...(status ? { status } : {}) },
        cursor,
        signal,
      ),
    [configId, cursor, status],
  );
  return (
    <section>
      <Breadcrumbs
        items={[
          ['Webhooks', href(['webhooks'])],
          [configId, undefined],
        ]}
      />
      <h2>Deliveries</h2>
      <nav class="filters" data-filter="status">
        {[undefined, ...STATUSES].map((s) => (
          <a
            key={s ?? 'all'}
            class={`button${s === status ? ' active' : ''}`}
            href={href(['webhooks', configId, 'deliveries'], { status: s })}
            aria-current={s === status ? 'page' : undefined}
          >
            {s ?? 'all'}
          </a>
        ))}
      </nav>
      <Show loaded={deliveries}>
        {(page) =>
          page.data.length === 0 ? (
            <p class="muted">
              {status ? `No ${status} deliveries.` : 'No deliveries for this configuration yet.'}
            </p>
          ) : (
            <>
              <table>
                <thead>
                  <tr>
                    <th>Delivery</th>
                    <th>Event type</th>
                    <th>Status</th>
                    <th class="number">Attempts</th>
                    <th class="number">Last answer</th>
                    <th>Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((d) => (
                    <tr key={d.id} data-delivery={d.id}>
                      <td>
                        <a href={href(['webhooks', configId, 'deliveries', d.id])}>
                          <code>{d.id}</code>
                        </a>
                      </td>
                      <td>
                        <code>{d.eventType}</code>
                      </td>
                      <td>
                        <span class={`badge ${statusBadge(d.status)}`}>{d.status}</span>
                      </td>
                      <td class="number">{String(d.attemptCount)}</td>
                      <td class="number">
                        {d.lastStatusCode !== undefined ? String(d.lastStatusCode) : '—'}
                      </td>
                      <td>
                        <Time value={d.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager page={page} segments={['webhooks', configId, 'deliveries']} />
            </>
          )
        }
      </Show>
    </section>
  );
}

type Replay =
  | { state: 'idle' | 'sending' }
  | { state: 'waiting'; attemptsBefore: bigint }
  | { state: 'error'; message: string };

/** Why the button does what it does now: what a user wonders when a delivery is still pending. */
function replayReason(delivery: Delivery): string {
  switch (delivery.status) {
    case 'pending':
      return delivery.attemptCount === 0n
        ? 'Pending: its first attempt is queued. Retry now sends it at once.'
        : `Pending: attempt ${delivery.attemptCount} failed and the next is scheduled${
            delivery.nextAttemptAt ? ` for ${delivery.nextAttemptAt.replace('T', ' ')}` : ''
          }. Retry now sends it at once; Replay is for a finished delivery.`;
    case 'failed':
      return 'Failed: every attempt of the schedule failed (or the endpoint answered 410). Replay sends it again and runs the schedule from its start.';
    case 'cancelled':
      return 'Cancelled: its config was deactivated or deleted. Activate the config, then Replay.';
    default:
      return 'Delivered. Replay sends it again, under the same id.';
  }
}

/** One delivery: its attempts, its payload, and a replay button for a finished one. */
export function DeliveryDetail({ configId, deliveryId }: { configId: string; deliveryId: string }) {
  const base = `/api/webhooks/deliveries/${encodeURIComponent(deliveryId)}`;
  const [detail, reload] = useLoad(
    async (signal) => {
      const [delivery, attempts] = await Promise.all([
        apiGet<{ data: Delivery }>(base, {}, signal),
        apiGet<{ cursor: { data: Attempt[] } }>(`${base}/attempts`, { pageSize: '100' }, signal),
      ]);
      return { delivery: delivery.data, attempts: attempts.cursor.data };
    },
    [base],
  );
  const [replay, setReplay] = useState<Replay>({ state: 'idle' });
  const label = useConfigLabel(configId);

  // After a replay, read the delivery again until its new attempt is recorded and it is no longer pending.
  useEffect(() => {
    if (replay.state !== 'waiting' || detail.state !== 'ready') return;
    const { delivery } = detail.value;
    if (delivery.attemptCount > replay.attemptsBefore && delivery.status !== 'pending') {
      setReplay({ state: 'idle' });
      return;
    }
    const timer = setTimeout(reload, REPLAY_POLL_MS);
    return () => clearTimeout(timer);
  });

  /**
   * A finished delivery is replayed (one more attempt); a pending one is brought forward by the bulk replay over
   * the one instant it was created at, its config and `pending`: its next attempt is sent now.
   */
  const sendReplay = async (delivery: Delivery) => {
    const attemptsBefore = delivery.attemptCount;
    setReplay({ state: 'sending' });
    try {
      if (delivery.status === 'pending')
        await apiPost('/api/webhooks/deliveries/replay', undefined, {
          createdAtFrom: delivery.createdAt,
          createdAtTo: new Date(Date.parse(delivery.createdAt) + 1).toISOString(),
          configIds: [delivery.configID],
          statuses: ['pending'],
        });
      else await apiPost(`${base}/replay`);
      setReplay({ state: 'waiting', attemptsBefore });
      reload();
    } catch (err) {
      setReplay({
        state: 'error',
        message: err instanceof ApiError ? err.message : String(err),
      });
    }
  };

  return (
    <section>
      <Breadcrumbs
        items={[
          ['Webhooks', href(['webhooks'])],
          [label, href(['webhooks', configId, 'deliveries'])],
          [deliveryId, undefined],
        ]}
      />
      <Show loaded={detail}>
        {({ delivery, attempts }) => (
          <>
            <div class="heading">
              <h2>
                Delivery <code>{delivery.id}</code>
              </h2>
              <button
                type="button"
                class="primary"
                data-action="replay"
                data-kind={delivery.status === 'pending' ? 'retry-now' : 'replay'}
                disabled={replay.state === 'sending' || replay.state === 'waiting'}
                title={
                  delivery.status === 'pending'
                    ? 'send its next attempt now instead of at its scheduled time'
                    : 'send it again now, as a new attempt'
                }
                onClick={() => sendReplay(delivery)}
              >
                {replay.state === 'sending'
                  ? 'Sending…'
                  : delivery.status === 'pending'
                    ? 'Retry now'
                    : 'Replay'}
              </button>
            </div>
            <p class="muted" data-reason>
              {replayReason(delivery)}
            </p>
            {replay.state === 'error' ? <ErrorBox message={replay.message} /> : null}
            {replay.state === 'waiting' ? (
              <p class="notice">Replay queued: waiting for the new attempt…</p>
            ) : null}
            <dl class="facts">
              <div>
                <dt>Status</dt>
                <dd>
                  <span
                    class={`badge ${statusBadge(delivery.status)}`}
                    data-status={delivery.status}
                  >
                    {delivery.status}
                  </span>
                </dd>
              </div>
              <div>
                <dt>Event</dt>
                <dd>
                  <code>{delivery.eventType}</code> <code class="muted">{delivery.eventID}</code>
                </dd>
              </div>
              <div>
                <dt>Attempts</dt>
                <dd>{String(delivery.attemptCount)}</dd>
              </div>
              {delivery.nextAttemptAt ? (
                <div>
                  <dt>Next attempt</dt>
                  <dd>
                    <Time value={delivery.nextAttemptAt} />
                  </dd>
                </div>
              ) : null}
            </dl>
            <h3>Attempts</h3>
            {attempts.length === 0 ? (
              <p class="muted">No attempt yet.</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th class="number">#</th>
                    <th class="number">Replay</th>
                    <th>At</th>
                    <th>Outcome</th>
                    <th class="number">Status</th>
                    <th class="number">Duration</th>
                    <th>Error / response</th>
                  </tr>
                </thead>
                <tbody>
                  {attempts.map((a) => (
                    <tr key={a.id} data-attempt={String(a.attemptNumber)}>
                      <td class="number">{String(a.attemptNumber)}</td>
                      <td class="number">{String(a.replayGeneration)}</td>
                      <td>
                        <Time value={a.createdAt} />
                      </td>
                      <td>
                        <span class={`badge ${a.outcome === 'succeeded' ? 'ok' : 'warn'}`}>
                          {a.outcome}
                        </span>
                      </td>
                      <td class="number">{a.statusCode ? String(a.statusCode) : '—'}</td>
                      <td class="number">
                        {a.durationMillis !== undefined ? `${a.durationMillis} ms` : '—'}
                      </td>
                      <td class="preview">{a.error ?? a.responseExcerpt ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {delivery.payload ? (
              <details>
                <summary>Payload</summary>
                <pre data-payload>{prettyJson(delivery.payload)}</pre>
              </details>
            ) : null}
          </>
        )}
      </Show>
    </section>
  );
}
