import { SDK } from '@formance/formance-sdk';
import { HTTPClient } from '@formance/formance-sdk/lib/http.js';
import {
  judgeFailure,
  judgeSuccess,
  type Outcome,
  type RouteCheck,
  type Verdict,
} from './classify.js';
import { ExchangeRecorder } from './exchanges.js';
import { notServedReason } from './not-served.js';
import { initialIds, OPERATIONS, type Operation, type ProbeContext } from './operations.js';
import { type HookReceiver, startHookReceiver } from './receiver.js';
import { SERVICES, type ServiceName, sdkOperations, serviceApi } from './services.js';
import { bearerForUnsecuredOperations } from './unsecured-operations.js';

export interface ProbeOptions {
  baseUrl: string;
  clientId?: string;
  clientSecret?: string;
  /** Makes this run's ledgers and references unique on a platform that already holds data (default: from the clock). */
  tag?: string;
  /** How long getDeliveries waits for the first webhook delivery (default 20 s). */
  deliveryWaitMs?: number;
  /** Called after each operation (progress). */
  onResult?: (row: ProbeRow) => void;
}

/** One SDK operation's outcome. */
export interface ProbeRow {
  service: ServiceName;
  op: string;
  outcome: Outcome;
  /** HTTP status of the operation's last exchange; undefined when nothing was sent. */
  status: number | undefined;
  /** Why a deliberately unserved operation is so, then what the probe saw; free of run-specific values. */
  note: string;
}

/** The local platform's test client (infra/local/auth.local.yaml), the default credentials. */
const LOCAL_CLIENT = { id: 'local-dev', secret: 'local-dev-secret' };

/**
 * Calls every SDK operation of OPERATIONS against the platform at `baseUrl`, in order, and judges each on what
 * the platform answered and what the SDK made of it. Rows come back as the SDK lists its services and operations.
 */
export async function runProbe(options: ProbeOptions): Promise<ProbeRow[]> {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const credentials = {
    id: options.clientId ?? LOCAL_CLIENT.id,
    secret: options.clientSecret ?? LOCAL_CLIENT.secret,
  };
  const tokenUrl = `${baseUrl}/api/auth/oauth/token`;
  const recorder = new ExchangeRecorder();
  const clientToken = memoToken(tokenUrl, credentials);
  const httpClient = new HTTPClient({ fetcher: recorder.fetcher });
  // The exporter and pipeline operations: SDK 7.0.1 sends them without a token (unsecured-operations.ts).
  bearerForUnsecuredOperations(httpClient, clientToken);
  const sdk = new SDK({
    serverURL: baseUrl,
    httpClient,
    security: { clientID: credentials.id, clientSecret: credentials.secret, tokenURL: tokenUrl },
    // One exchange per call: a retried call would be judged on its last attempt only.
    retryConfig: { strategy: 'none' },
  });
  const receiver = await startHookReceiver();
  const tag = options.tag ?? Date.now().toString(36);
  const ctx = probeContext(tag, receiver, recorder, options.deliveryWaitMs ?? 20_000);
  const routeExists = routeCheck(clientToken);
  const scrub = scrubber([
    [tag, '<run>'],
    [receiver.url, '<hook>'],
    [baseUrl, '<platform>'],
  ]);

  const rows: ProbeRow[] = [];
  try {
    for (const operation of OPERATIONS) {
      const verdict = await judge(operation, sdk, ctx, recorder, routeExists);
      const note = [notServedReason(operation.service, operation.op), scrub(verdict.detail)]
        .filter(Boolean)
        .join(' — ');
      const row: ProbeRow = {
        service: operation.service,
        op: operation.op,
        outcome: verdict.outcome,
        status: verdict.status,
        note,
      };
      rows.push(row);
      options.onResult?.(row);
    }
  } finally {
    await receiver.close();
  }
  return sortAsTheSdkLists(rows, sdk);
}

async function judge(
  operation: Operation,
  sdk: SDK,
  ctx: ProbeContext,
  recorder: ExchangeRecorder,
  routeExists: RouteCheck,
): Promise<Verdict> {
  recorder.reset();
  try {
    await operation.call(sdk, ctx);
    return await judgeSuccess(
      operation.service,
      operation.op,
      recorder.lastApiExchange(),
      routeExists,
    );
  } catch (err) {
    return await judgeFailure(err, recorder.lastApiExchange(), routeExists);
  } finally {
    operation.capture?.(ctx);
  }
}

function probeContext(
  tag: string,
  receiver: HookReceiver,
  recorder: ExchangeRecorder,
  deliveryWaitMs: number,
): ProbeContext {
  return {
    names: {
      tag,
      ledger: `compat-${tag}`,
      importLedger: `compat-import-${tag}`,
      bucket: `compat-${tag}`,
      spareBucket: `compat-spare-${tag}`,
    },
    hookUrl: receiver.url,
    now: new Date(),
    ids: initialIds(),
    json: (part) => recorder.lastJson(part),
    lastBody: (part) => recorder.lastBody(part),
    waitForDelivery: async () => {
      const deadline = Date.now() + deliveryWaitMs;
      while (receiver.count() === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
    },
  };
}

/**
 * Asks the platform again, with a token and the same method, whether it routes a URL: a HEAD answer has no body
 * to say "no route", and a request the SDK sends without a token is refused before routing.
 */
/** A token of the probe's client (client credentials), asked for once. */
function memoToken(
  tokenUrl: string,
  credentials: { id: string; secret: string },
): () => Promise<string> {
  let token: Promise<string> | undefined;
  const ask = async () => {
    const res = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: credentials.id,
        client_secret: credentials.secret,
      }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  return () => {
    token ??= ask();
    return token;
  };
}

function routeCheck(token: () => Promise<string>): RouteCheck {
  return async (method, url) => {
    const m = method === 'HEAD' ? 'GET' : method;
    const withBody = m !== 'GET' && m !== 'DELETE';
    const res = await fetch(url, {
      method: m,
      headers: {
        authorization: `Bearer ${await token()}`,
        ...(withBody ? { 'content-type': 'application/json' } : {}),
      },
      ...(withBody ? { body: '{}' } : {}),
    });
    return !/no route for/i.test(await res.text());
  };
}

/** Replaces run-specific values (names, ports, ids, instants) so that two runs write the same report. */
export function scrubber(fixed: Array<[string, string]>): (text: string) => string {
  return (text) => {
    let out = text;
    for (const [value, placeholder] of fixed) out = out.split(value).join(placeholder);
    return out
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?/g, '<time>')
      .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
  };
}

function sortAsTheSdkLists(rows: ProbeRow[], sdk: SDK): ProbeRow[] {
  const rank = new Map<string, number>();
  for (const service of SERVICES)
    for (const op of sdkOperations(serviceApi(sdk, service)))
      rank.set(`${service}.${op}`, rank.size);
  const at = (r: ProbeRow) => rank.get(`${r.service}.${r.op}`) ?? Number.MAX_SAFE_INTEGER;
  return [...rows].sort((a, b) => at(a) - at(b));
}
