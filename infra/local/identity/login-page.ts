import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { Interaction, InteractionResults } from 'oidc-provider';
import type { LocalAccounts } from './accounts.js';
import { IDENTITY_MOUNT_PATH } from './provider.js';

/** `/_idp/interaction/<uid>` (the form) and `/_idp/interaction/<uid>/login` (its POST). */
const INTERACTION = new RegExp(
  `^${IDENTITY_MOUNT_PATH}/interaction/([A-Za-z0-9_-]{1,64})(/login)?$`,
);
/** An email and a password: a form bigger than this is not one. */
const MAX_FORM_BYTES = 4096;

/**
 * The login step of the authorization-code flow, through oidc-provider's interaction API: our own minimal page
 * checks an account's password (oidc-provider's development interactions accept any password, so they stay off).
 * Answers true when the request was one of its own.
 */
export async function handleLoginPage(
  provider: Provider,
  accounts: LocalAccounts,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://local');
  const match = INTERACTION.exec(url.pathname);
  if (!match) return false;
  const [, uid, login] = match;
  try {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) return page(res, 400, message('This sign-in request is not yours.'));
    // Signed in already (a session), only consent asked: the development client is first-party, so it is given.
    if (details.prompt.name === 'consent' && details.session?.accountId) {
      const result = await consented(provider, details, details.session.accountId);
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
      return true;
    }
    if (details.prompt.name !== 'login')
      return page(res, 400, message('This sign-in request is not waiting for a login.'));
    if (!login || req.method !== 'POST') return page(res, 200, loginForm(uid!));
    const form = new URLSearchParams(await readBody(req));
    const email = form.get('email') ?? '';
    const account = accounts.authenticate(email, form.get('password') ?? '');
    if (!account) return page(res, 401, loginForm(uid!, email, 'Wrong email or password.'));
    const result = await consented(provider, details, account.subject);
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: account.subject }, ...result },
      { mergeWithLastSubmission: false },
    );
  } catch {
    // An unknown or expired interaction (its cookie is gone), or a body too big: start again.
    page(res, 400, message('This sign-in request has expired or is unknown: start again.'));
  }
  return true;
}

/**
 * The grant of the scopes asked for, to the development client (first-party: its consent is implied, as a
 * provider does for its own applications). Native clients always pass through consent (oidc-provider's policy).
 */
async function consented(
  provider: Provider,
  details: Interaction,
  accountId: string,
): Promise<InteractionResults> {
  const clientId = String(details.params.client_id);
  const grant =
    (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
    new provider.Grant({ clientId, accountId });
  grant.addOIDCScope(String(details.params.scope ?? 'openid'));
  return { consent: { grantId: await grant.save() } };
}

function page(res: ServerResponse, status: number, body: string): true {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  });
  res.end(body);
  return true;
}

function loginForm(uid: string, email = '', error?: string): string {
  return layout(`
    <p>Local development identity provider. Its accounts (infra/local/identity.local.yaml) are for testing only.</p>
    ${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
    <form method="post" action="${IDENTITY_MOUNT_PATH}/interaction/${uid}/login">
      <label>Email <input name="email" type="email" autocomplete="username" value="${escapeHtml(email)}" required autofocus></label>
      <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
      <button type="submit">Sign in</button>
    </form>`);
}

const message = (text: string) => layout(`<p>${escapeHtml(text)}</p>`);

const layout = (content: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in (local development)</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}label{display:block;margin:.75rem 0}input{display:block;width:100%;padding:.4rem;margin-top:.25rem}[role=alert]{color:#b00}</style>
</head><body><main><h1>Sign in</h1>${content}</main></body></html>`;

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new Error('form too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
