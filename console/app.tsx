import { useEffect, useState } from 'preact/hooks';
import { setApiToken } from './api.js';
import { ErrorBox } from './components.js';
import { href, type Route, useRoute } from './router.js';
import { Accounts } from './screens/accounts.js';
import { Deliveries, DeliveryDetail } from './screens/deliveries.js';
import { Holds } from './screens/holds.js';
import { AccountDetail, TransactionDetail } from './screens/ledger-details.js';
import { Ledgers } from './screens/ledgers.js';
import { Logs } from './screens/logs.js';
import { Monitors } from './screens/monitors.js';
import { Pipelines } from './screens/pipelines.js';
import { SignIn } from './screens/sign-in.js';
import { Transactions } from './screens/transactions.js';
import { WebhookConfigs } from './screens/webhooks.js';
import { clearSession, isExpired, loadSession, type Session, saveSession } from './session.js';

const EXPIRED = 'Your session has ended (the token expired or was refused): sign in again.';

export function App() {
  const [session, setSession] = useState<Session | undefined>(loadSession);
  const [notice, setNotice] = useState<string>();
  const route = useRoute();

  const signOut = (reason?: string) => {
    clearSession();
    setApiToken(undefined);
    setNotice(reason);
    setSession(undefined);
  };
  // Set during render, not in an effect: the screens' first loads run in effects and need the token already.
  setApiToken(session?.token, () => signOut(EXPIRED));

  // Signed out when the token's own expiry passes, not only at the next refused call.
  useEffect(() => {
    if (!session?.expiresAt) return;
    const timer = setTimeout(
      () => isExpired(session) && signOut(EXPIRED),
      Math.max(0, session.expiresAt * 1000 - Date.now()) + 1000,
    );
    return () => clearTimeout(timer);
  }, [session]);

  if (!session)
    return (
      <SignIn
        notice={notice}
        onSignedIn={(s) => {
          saveSession(s);
          setNotice(undefined);
          setSession(s);
        }}
      />
    );

  const [area] = route.segments;
  return (
    <>
      <header>
        <strong class="brand">Platform console</strong>
        <nav>
          <a href={href(['ledgers'])} class={area !== 'webhooks' ? 'active' : undefined}>
            Ledgers
          </a>
          <a href={href(['webhooks'])} class={area === 'webhooks' ? 'active' : undefined}>
            Webhooks
          </a>
        </nav>
        <span class="who" title={session.scopes.join(' ')}>
          {session.subject ?? 'token'}
          {session.expiresAt
            ? ` · until ${new Date(session.expiresAt * 1000).toLocaleTimeString()}`
            : ''}
        </span>
        <button type="button" class="link" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <main>
        <Screen route={route} />
      </main>
    </>
  );
}

function Screen({ route }: { route: Route }) {
  const [area, id, sub, subId] = route.segments;
  if (area === undefined || (area === 'ledgers' && id === undefined))
    return <Ledgers route={route} />;
  if (area === 'ledgers' && id !== undefined) {
    if (sub === 'accounts' && subId !== undefined)
      return <AccountDetail ledger={id} address={subId} />;
    if (sub === 'accounts' || sub === undefined) return <Accounts ledger={id} route={route} />;
    if (sub === 'transactions' && subId !== undefined)
      return <TransactionDetail ledger={id} id={subId} />;
    if (sub === 'transactions') return <Transactions ledger={id} route={route} />;
    if (sub === 'logs') return <Logs ledger={id} route={route} />;
    if (sub === 'pending') return <Holds ledger={id} route={route} />;
    if (sub === 'monitors') return <Monitors ledger={id} route={route} />;
    if (sub === 'pipelines') return <Pipelines ledger={id} route={route} />;
  }
  if (area === 'webhooks') {
    if (id === undefined) return <WebhookConfigs route={route} />;
    if (sub === 'deliveries' && subId !== undefined)
      return <DeliveryDetail configId={id} deliveryId={subId} />;
    if (sub === 'deliveries' || sub === undefined)
      return <Deliveries configId={id} route={route} />;
  }
  return <ErrorBox message={`Nothing here: ${location.hash}`} />;
}
