/**
 * Who is signed in: a bearer token and what its claims say about it (for display only — the services verify
 * the token; the console never trusts the claims for anything but showing them and noticing expiry).
 *
 * Kept in sessionStorage, never in a URL (docs/decisions/console-cli-docs.md, "Console sign-in"): a reload or a new page of the
 * same tab stays signed in, a new tab or a closed one is signed out, and the client secret itself is never kept
 * anywhere — it is exchanged for a token and dropped.
 */

export interface Session {
  token: string;
  /** The token's `sub` (the client id for client credentials), when it says. */
  subject?: string;
  scopes: string[];
  /** Unix seconds, from `exp`, when the token says. */
  expiresAt?: number;
}

const STORAGE_KEY = 'platform-console.session';

export class SignInError extends Error {}

export function loadSession(): Session | undefined {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    const session = raw ? (JSON.parse(raw) as Session) : undefined;
    return session && !isExpired(session) ? session : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

export function isExpired(session: Session, nowMs = Date.now()): boolean {
  return session.expiresAt !== undefined && session.expiresAt * 1000 <= nowMs;
}

/** A pasted bearer token (a personal token, once they exist, or any platform JWT). */
export function sessionFromToken(pasted: string): Session {
  const token = pasted.trim().replace(/^Bearer\s+/i, '');
  if (!/^[\w-]+\.[\w-]+\.[\w-]*$/.test(token))
    throw new SignInError(
      'that is not a bearer token (a JWT: three base64url parts joined by dots)',
    );
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(base64UrlDecode(token.split('.')[1]!)) as Record<string, unknown>;
  } catch {
    throw new SignInError('that token cannot be read: its claims are not base64url JSON');
  }
  const session: Session = {
    token,
    scopes: typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [],
  };
  if (typeof claims.sub === 'string') session.subject = claims.sub;
  if (typeof claims.exp === 'number') session.expiresAt = claims.exp;
  if (isExpired(session)) throw new SignInError('that token has expired');
  return session;
}

/** Client credentials (client_secret_post) exchanged for a token at the platform's token endpoint. */
export async function signInWithClient(clientId: string, clientSecret: string): Promise<Session> {
  if (!clientId.trim() || !clientSecret) throw new SignInError('enter a client id and a secret');
  let res: Response;
  try {
    res = await fetch('/api/auth/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId.trim(),
        client_secret: clientSecret,
      }),
    });
  } catch {
    throw new SignInError('the platform cannot be reached');
  }
  const body = (await res.json().catch(() => ({}))) as {
    access_token?: string;
    error?: string;
    error_description?: string;
  };
  if (res.status === 200 && typeof body.access_token === 'string')
    return sessionFromToken(body.access_token);
  if (res.status === 401) throw new SignInError('unknown client or wrong secret');
  if (res.status === 429) {
    const after = res.headers.get('retry-after');
    throw new SignInError(
      `too many failed sign-ins: try again${after ? ` in ${after} seconds` : ' later'}`,
    );
  }
  throw new SignInError(
    `sign-in failed (${res.status}${body.error ? ` ${body.error}` : ''})${body.error_description ? `: ${body.error_description}` : ''}`,
  );
}

function base64UrlDecode(part: string): string {
  const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}
