// What one attempt's response means for the delivery (docs/api.md §4.1); what is recorded of it is
// `AttemptOutcome` (delivery.ts).

export type ResponseOutcome =
  | { kind: 'succeeded' }
  /** 410 Gone: the receiver says the endpoint is gone for good — deactivate the config, stop retrying. */
  | { kind: 'deactivate' }
  | { kind: 'retry'; reason: 'redirect' | 'status' | 'error' };

/** `status` undefined means no HTTP answer at all (refused, timeout, connection error). */
export function classifyOutcome(status: number | undefined): ResponseOutcome {
  if (status === undefined) return { kind: 'retry', reason: 'error' };
  if (status >= 200 && status < 300) return { kind: 'succeeded' };
  if (status === 410) return { kind: 'deactivate' };
  // Redirects are never followed (a redirect could point anywhere, including inside our network): the
  // customer must update the URL, and until then the attempt is a failure like any other.
  if (status >= 300 && status < 400) return { kind: 'retry', reason: 'redirect' };
  return { kind: 'retry', reason: 'status' };
}
