/** One HTTP exchange the SDK made, as the probe saw it. */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  body: string;
  /** The Count header, which count operations exist for. */
  count: string | null;
}

/** Bodies beyond this are cut: the probe only reads ids and error messages from them. */
const MAX_BODY = 256 * 1024;

/**
 * Records every exchange of the SDK's HTTP client (a fetcher for its HTTPClient), so an outcome can be read from
 * the status and body the platform actually sent, whatever the SDK made of them.
 */
export class ExchangeRecorder {
  private exchanges: Exchange[] = [];

  readonly fetcher = async (
    input: Parameters<typeof fetch>[0],
    init?: RequestInit,
  ): Promise<Response> => {
    // The SDK passes a Request, but not necessarily one of this realm's class: read it by shape.
    const request = typeof input === 'object' && 'url' in input ? input : undefined;
    const method = init?.method ?? request?.method ?? 'GET';
    const url = request?.url ?? String(input);
    const res = await fetch(input, init);
    const body = await res
      .clone()
      .text()
      .catch(() => '');
    this.exchanges.push({
      method,
      url,
      status: res.status,
      body: body.slice(0, MAX_BODY),
      count: res.headers.get('count'),
    });
    return res;
  };

  /** Forgets what came before: each operation is judged on its own exchanges. */
  reset(): void {
    this.exchanges = [];
  }

  /** The last exchange with the API (token requests are the SDK's own business). */
  lastApiExchange(): Exchange | undefined {
    return this.exchanges.findLast((x) => !x.url.includes('/oauth/token'));
  }

  /** The raw body of the last exchange whose URL contains `part`. */
  lastBody(part: string): string | undefined {
    return this.exchanges.findLast((e) => e.url.includes(part))?.body;
  }

  /** The parsed JSON body of the last exchange whose URL contains `part` (ids survive an SDK that rejects a body). */
  lastJson(part: string): any {
    const body = this.lastBody(part);
    try {
      return body === undefined ? undefined : JSON.parse(body);
    } catch {
      return undefined;
    }
  }
}
