import { apiList } from '../api.js';
import { Pager, Show, Time, useLoad } from '../components.js';
import { href, type Route } from '../router.js';
import { PAGE_SIZE } from './ledgers.js';

interface Config {
  id: string;
  name?: string;
  endpoint: string;
  eventTypes: string[];
  active: boolean;
  createdAt: string;
}

/** Webhook configurations (their secrets are never shown: they are the receivers' keys). */
export function WebhookConfigs({ route }: { route: Route }) {
  const cursor = route.query.get('cursor') ?? undefined;
  const [configs] = useLoad(
    (signal) => apiList<Config>('/api/webhooks/configs', { pageSize: PAGE_SIZE }, cursor, signal),
    [cursor],
  );
  return (
    <section>
      <h2>Webhooks</h2>
      <Show loaded={configs}>
        {(page) =>
          page.data.length === 0 ? (
            <p class="muted">No webhook configurations yet.</p>
          ) : (
            <>
              <table>
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Endpoint</th>
                    <th>Event types</th>
                    <th>State</th>
                    <th>Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((config) => (
                    <tr key={config.id} data-config={config.id}>
                      <td>
                        <a href={href(['webhooks', config.id, 'deliveries'])}>
                          {config.name || config.id}
                        </a>
                      </td>
                      <td class="endpoint">{config.endpoint}</td>
                      <td>
                        {config.eventTypes.map((t) => (
                          <code key={t} class="tag">
                            {t}
                          </code>
                        ))}
                      </td>
                      <td>
                        <span class={`badge ${config.active ? 'ok' : 'warn'}`}>
                          {config.active ? 'active' : 'inactive'}
                        </span>
                      </td>
                      <td>
                        <Time value={config.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager page={page} segments={['webhooks']} />
            </>
          )
        }
      </Show>
    </section>
  );
}
