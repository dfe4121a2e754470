import { useState } from 'preact/hooks';
import { ErrorBox } from '../components.js';
import { type Session, SignInError, sessionFromToken, signInWithClient } from '../session.js';

type Mode = 'client' | 'token';

/**
 * Two ways in: client credentials (exchanged here for a token at the platform's token endpoint), or a bearer
 * token pasted as is — what a personal token will be once environments exist. Either way the console ends up
 * holding one token, and the secret is forgotten as soon as the exchange is done.
 */
export function SignIn({
  onSignedIn,
  notice,
}: {
  onSignedIn: (s: Session) => void;
  notice?: string;
}) {
  const [mode, setMode] = useState<Mode>('client');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(
        mode === 'client'
          ? await signInWithClient(
              String(form.get('clientId') ?? ''),
              String(form.get('clientSecret') ?? ''),
            )
          : sessionFromToken(String(form.get('token') ?? '')),
      );
    } catch (err) {
      setError(err instanceof SignInError ? err.message : `sign-in failed: ${String(err)}`);
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <h1>Platform console</h1>
      {notice ? <p class="notice">{notice}</p> : null}
      <div class="tabs" role="tablist">
        <button
          type="button"
          role="tab"
          aria-selected={mode === 'client'}
          class={mode === 'client' ? 'active' : undefined}
          onClick={() => setMode('client')}
        >
          Client credentials
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={mode === 'token'}
          class={mode === 'token' ? 'active' : undefined}
          onClick={() => setMode('token')}
        >
          Bearer token
        </button>
      </div>
      {/* POST with no action: even if scripts failed, the fields would never land in a URL. */}
      <form method="post" onSubmit={submit} autocomplete="off">
        {mode === 'client' ? (
          <>
            <label>
              Client id
              <input name="clientId" required autocomplete="username" spellcheck={false} />
            </label>
            <label>
              Client secret
              <input name="clientSecret" type="password" required autocomplete="current-password" />
            </label>
          </>
        ) : (
          <label>
            Token
            <textarea
              name="token"
              required
              rows={5}
              spellcheck={false}
              placeholder="eyJhbGciOi… (a personal token or any platform access token)"
            />
          </label>
        )}
        {error ? <ErrorBox message={error} /> : null}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
