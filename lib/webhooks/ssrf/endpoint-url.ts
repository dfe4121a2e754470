// The registration-time check of a receiver's URL, shared by webhook configs and the exporters' http driver:
// its own module, so that a service checking URLs does not load the webhooks' domain (and the event catalog).
import type { Stage } from '../../config/env.js';
import { literalHostProblem } from './literal-host.js';

export const MAX_ENDPOINT_LENGTH = 2048;

/**
 * Why `raw` is not an acceptable endpoint, or undefined: an absolute http(s) URL with a host, no userinfo, no
 * fragment, at most 2048 characters; https unless the stage is `local`; a host that is not an IP literal the
 * SSRF guard would refuse (loopback only in the `local` stage, as the deliverer allows it there). The endpoint is
 * stored as given. Host names are judged at connect time, on what they resolve to then (`ssrf/guarded-lookup.ts`).
 */
export function endpointProblem(raw: string, stage: Stage): string | undefined {
  if (raw.length > MAX_ENDPOINT_LENGTH) return `must be at most ${MAX_ENDPOINT_LENGTH} characters`;
  if (/[\u0000-\u0020\u007f]/.test(raw)) return 'must not contain spaces or control characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  // `https:///x` parses with host `x`, `http:host` as `http://host/`: require `//` and a host right after it.
  if (!/^https?:\/\/[^/?#\\]/i.test(raw) || url.hostname === '') return 'must name a host';
  // `new URL` drops an empty userinfo (`https://@host`) and an empty fragment (`https://host/#`): look at the text too.
  if (url.username !== '' || url.password !== '' || /^https?:\/\/[^/?#]*@/i.test(raw))
    return 'must not contain credentials (user:password@)';
  if (raw.includes('#')) return 'must not contain a fragment';
  if (url.protocol === 'http:' && stage !== 'local') return 'must use https';
  return literalHostProblem(url.hostname, { allowLoopback: stage === 'local' });
}
