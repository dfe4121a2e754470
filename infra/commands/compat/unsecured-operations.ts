import type { HTTPClient } from '@formance/formance-sdk/lib/http.js';

/**
 * SDK 7.0.1 declares no security on the twelve exporter and pipeline operations and on three of payments v3's bank
 * account operations (get, metadata, forward: the reference's OpenAPI gives them none) and so sends them without a
 * token, which the platform refuses (401): every request works in its token's environment. A `beforeRequest` hook on
 * the SDK's HTTP client adds the bearer to exactly those requests (docs/api.md §3.5, §6) — an SDK feature, the SDK
 * otherwise unchanged.
 */
const SENT_WITHOUT_TOKEN = [
  /^\/api\/ledger\/v2\/_\/exporters(\/[^/]+)?$/,
  /^\/api\/ledger\/v2\/[^/]+\/pipelines(\/[^/]+(\/(start|stop|reset))?)?$/,
  /^\/api\/payments\/v3\/bank-accounts\/[^/]+(\/(metadata|forward))?$/,
];

export function bearerForUnsecuredOperations(
  client: HTTPClient,
  token: () => Promise<string>,
): HTTPClient {
  return client.addHook('beforeRequest', async (request) => {
    if (request.headers.has('authorization')) return request;
    if (!SENT_WITHOUT_TOKEN.some((re) => re.test(new URL(request.url).pathname))) return request;
    const withToken = new Request(request);
    withToken.headers.set('authorization', `Bearer ${await token()}`);
    return withToken;
  });
}
