/**
 * Hash routes (`#/ledgers/main/accounts?cursor=…`): the server serves one page whatever the route, back and
 * forward work, and nothing of the route ever reaches the server. Cursors live in the route so a page can be
 * reloaded or linked; they are opaque list positions, not secrets. The token never does.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** Path segments, decoded: `#/ledgers/main/accounts` → ['ledgers', 'main', 'accounts']. */
  segments: string[];
  query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?', 2);
  return {
    segments: path
      .split('/')
      .filter(Boolean)
      .map((s) => decodeURIComponent(s)),
    query: new URLSearchParams(search),
  };
}

/** A route's href from segments (each encoded) and query parameters (undefined ones left out). */
export function href(segments: string[], query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  const search = params.toString();
  return `#/${segments.map(encodeURIComponent).join('/')}${search ? `?${search}` : ''}`;
}

export function useRoute(): Route {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return parseRoute(hash);
}
