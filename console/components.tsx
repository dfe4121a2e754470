/** Pieces every screen uses: loading data, pages, errors, metadata, exact amounts. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Page } from './api.js';
import { assetCode, decimalAmount } from './format.js';
import { href } from './router.js';

export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'error'; message: string }
  | { state: 'ready'; value: T };

/**
 * Runs `load` whenever one of `keys` changes (and when `reload` is called); a load still running when the keys
 * change is aborted, so a slow answer never overwrites a newer one.
 */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  keys: unknown[],
): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setLoaded((previous) => (previous.state === 'ready' ? previous : { state: 'loading' }));
    load(controller.signal).then(
      (value) => controller.signal.aborted || setLoaded({ state: 'ready', value }),
      (err: unknown) =>
        controller.signal.aborted ||
        setLoaded({ state: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => controller.abort();
  }, [...keys, generation]);
  return [loaded, () => setGeneration((g) => g + 1)];
}

/** What a load shows while it is not ready; `children` renders the value. */
export function Show<T>({
  loaded,
  children,
}: {
  loaded: Loaded<T>;
  children: (value: T) => ComponentChildren;
}) {
  if (loaded.state === 'loading') return <p class="muted">Loading…</p>;
  if (loaded.state === 'error') return <ErrorBox message={loaded.message} />;
  return <>{children(loaded.value)}</>;
}

export function ErrorBox({ message }: { message: string }) {
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

/** Previous / next links over the API's cursors, kept in the route (`?cursor=`). */
export function Pager({ page, segments }: { page: Page<unknown>; segments: string[] }) {
  if (!page.previous && !page.next) return null;
  return (
    <nav class="pager">
      {page.previous ? (
        <a class="button" href={href(segments, { cursor: page.previous })}>
          ← Previous
        </a>
      ) : (
        <span class="button disabled">← Previous</span>
      )}
      {page.next ? (
        <a class="button" href={href(segments, { cursor: page.next })}>
          Next →
        </a>
      ) : (
        <span class="button disabled">Next →</span>
      )}
    </nav>
  );
}

export function Metadata({ metadata }: { metadata: Record<string, unknown> | undefined }) {
  const entries = Object.entries(metadata ?? {});
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <dl class="metadata">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{typeof value === 'string' ? value : String(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * An exact amount: the integer as the API sent it (parsed as bigint), every digit, in the asset's smallest
 * unit (`USD/2` counts cents), and beside it, when the asset names its precision, the same amount as a decimal
 * (`25.00 USD`, the point moved in the digits: nothing is rounded). `showAsset` false when a column says it.
 */
export function Amount({
  value,
  asset,
  showAsset = true,
}: {
  value: unknown;
  asset?: string | undefined;
  showAsset?: boolean;
}) {
  const decimal = decimalAmount(value, asset);
  return (
    <span class="amount">
      {decimal !== undefined && asset ? (
        <span class="formatted">
          {decimal} {assetCode(asset)}{' '}
        </span>
      ) : null}
      <span class="digits">{String(value)}</span>
      {asset && showAsset ? <span class="asset"> {asset}</span> : null}
    </span>
  );
}

export function Time({ value }: { value: unknown }) {
  if (typeof value !== 'string') return <span class="muted">—</span>;
  return <time dateTime={value}>{value.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}</time>;
}

/** Tabs of a ledger's screens. */
export function LedgerTabs({ ledger, current }: { ledger: string; current: string }) {
  const tabs = [
    ['accounts', 'Accounts'],
    ['transactions', 'Transactions'],
    ['logs', 'Logs'],
    ['pending', 'Holds'],
    ['monitors', 'Monitors'],
    ['pipelines', 'Pipelines'],
  ] as const;
  return (
    <nav class="tabs">
      {tabs.map(([key, label]) => (
        <a
          key={key}
          href={href(['ledgers', ledger, key])}
          class={key === current ? 'active' : undefined}
          aria-current={key === current ? 'page' : undefined}
        >
          {label}
        </a>
      ))}
    </nav>
  );
}

export function Breadcrumbs({ items }: { items: Array<[string, string | undefined]> }) {
  return (
    <nav class="breadcrumbs">
      {items.map(([label, link], i) => (
        <span key={`${i}`}>
          {i > 0 ? ' / ' : null}
          {link ? <a href={link}>{label}</a> : <strong>{label}</strong>}
        </span>
      ))}
    </nav>
  );
}
