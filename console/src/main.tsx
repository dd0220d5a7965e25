import { render } from 'preact';
import { lazy, Suspense } from 'preact/compat';
import { useState } from 'preact/hooks';
import { Link, Route, Router, Switch, useLocation } from 'wouter-preact';
import { useHashLocation } from 'wouter-preact/use-hash-location';
import { loadConfig } from './config';
import { AccountSwitch } from './account-switch';
import { can, currentRegion, currentSession, initState, setRegion, signIn, signOut, useAppState } from './session';
import { ErrorText, Loading } from './ui/widgets';
import './styles.css';

// Each page is its own chunk, loaded when it is first opened.
const Overview = lazy(() => import('./pages/overview'));
const Domains = lazy(() => import('./pages/domains'));
const DomainDetail = lazy(() => import('./pages/domain-detail'));
const Logs = lazy(() => import('./pages/logs'));
const Outbox = lazy(() => import('./pages/outbox'));
const Suppressions = lazy(() => import('./pages/suppressions'));
const Templates = lazy(() => import('./pages/templates'));
const Routes = lazy(() => import('./pages/routes'));
const Lists = lazy(() => import('./pages/lists'));
const ApiKeys = lazy(() => import('./pages/keys'));
const Reporting = lazy(() => import('./pages/reporting'));
const Inspect = lazy(() => import('./pages/inspect'));
const Previews = lazy(() => import('./pages/previews'));
const Subaccounts = lazy(() => import('./pages/subaccounts'));
const Ips = lazy(() => import('./pages/ips'));
const Account = lazy(() => import('./pages/account'));
const Dmarc = lazy(() => import('./pages/dmarc'));
const Blocklists = lazy(() => import('./pages/blocklists'));
const Health = lazy(() => import('./pages/health'));
const Placement = lazy(() => import('./pages/placement'));
const SpamTraps = lazy(() => import('./pages/spamtraps'));
const Postmaster = lazy(() => import('./pages/postmaster'));
const Alerts = lazy(() => import('./pages/alerts'));

interface NavItem {
  href: string;
  name: string;
  shown?: () => boolean;
  /** The heading the link is listed under; none for the sending and receiving pages. */
  group?: string;
}

function navItems(outbox: boolean): NavItem[] {
  return [
    { href: '/overview', name: 'Overview' },
    { href: '/domains', name: 'Domains' },
    { href: '/logs', name: 'Logs' },
    { href: '/suppressions', name: 'Suppressions' },
    { href: '/templates', name: 'Templates' },
    { href: '/routes', name: 'Routes' },
    { href: '/lists', name: 'Mailing lists' },
    { href: '/keys', name: 'API keys', shown: () => can('admin') },
    { href: '/reporting', name: 'Reporting' },
    { href: '/inspect', name: 'Inspect', group: 'Inspect' },
    { href: '/previews', name: 'Previews', group: 'Inspect' },
    { href: '/dmarc', name: 'DMARC', group: 'Optimize' },
    { href: '/blocklists', name: 'Blocklists', group: 'Optimize' },
    { href: '/health', name: 'Health score', group: 'Optimize' },
    { href: '/placement', name: 'Inbox placement', group: 'Optimize' },
    { href: '/spamtraps', name: 'Spam traps', group: 'Optimize' },
    { href: '/postmaster', name: 'Postmaster', group: 'Optimize' },
    { href: '/alerts', name: 'Alerts', group: 'Optimize' },
    ...(outbox ? [{ href: '/outbox', name: 'Outbox' }] : []),
    { href: '/subaccounts', name: 'Subaccounts', group: 'Account' },
    { href: '/ips', name: 'IPs', group: 'Account' },
    { href: '/account', name: 'Account settings', group: 'Account' },
  ];
}

/** The nav's links, those without a group first, then each group under its heading. */
function NavLists({ items, location, onPick }: { items: NavItem[]; location: string; onPick: () => void }) {
  const groups = [...new Set(items.map((item) => item.group ?? ''))];
  return (
    <>
      {groups.map((group) => {
        const id = `nav-${group.toLowerCase().replace(/\W+/g, '-')}`;
        return (
          <div key={group}>
            {group ? (
              <p class="nav-group" id={id}>
                {group}
              </p>
            ) : null}
            <ul aria-labelledby={group ? id : undefined}>
              {items
                .filter((item) => (item.group ?? '') === group)
                .map((item) => (
                  <li key={item.href}>
                    <Link href={item.href} aria-current={location === item.href || location.startsWith(`${item.href}/`) ? 'page' : undefined} onClick={onPick}>
                      {item.name}
                    </Link>
                  </li>
                ))}
            </ul>
          </div>
        );
      })}
    </>
  );
}

function RegionSwitch() {
  const { config, region } = useAppState();
  if (!config || config.regions.length < 2) return null;
  return (
    <div class="region-switch">
      <label for="region">Region</label>
      <select id="region" value={region} onChange={(e) => setRegion((e.target as HTMLSelectElement).value)}>
        {config.regions.map((r) => (
          <option key={r.id} value={r.id}>
            {r.label}
          </option>
        ))}
      </select>
    </div>
  );
}

function SignIn() {
  const { notice } = useAppState();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const region = currentRegion();
  return (
    <main id="main" class="sign-in">
      <h1>Mailplane console</h1>
      <p class="muted">
        Sign in to the {region.label} region ({region.api}) with an API key. The console exchanges it for a one-day web key and does not keep the key you enter.
      </p>
      {notice ? <p role="status" class="notice">{notice}</p> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const form = e.currentTarget;
          const input = form.elements.namedItem('api-key') as HTMLInputElement;
          const entered = input.value;
          setBusy(true);
          void signIn(entered).then((failure) => {
            setBusy(false);
            input.value = '';
            setError(failure);
          });
        }}
      >
        <label for="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autocomplete="off" spellcheck={false} required />
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
        <ErrorText error={error} />
      </form>
      <RegionSwitch />
    </main>
  );
}

function Shell() {
  // A new account acted on remounts the pages, so each loads again as that account.
  const { config, acting } = useAppState();
  const session = currentSession()!;
  const [location] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const items = navItems(config!.outbox).filter((item) => !item.shown || item.shown());
  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Mailplane</span>
        <button type="button" class="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <div class="top-right">
          <AccountSwitch />
          <RegionSwitch />
          <span class="who" title={session.email}>
            {session.role}
            {session.inMemory ? ' (key kept for this page only)' : ''}
          </span>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav id="nav" aria-label="Console" class={menuOpen ? 'open' : ''}>
        <NavLists items={items} location={location} onPick={() => setMenuOpen(false)} />
      </nav>
      <main id="main" tabIndex={-1} key={acting?.id ?? ''}>
        <Suspense fallback={<Loading what="page" />}>
          <Switch>
            <Route path="/overview" component={Overview} />
            <Route path="/domains" component={Domains} />
            <Route path="/domains/:name">{(params: { name: string }) => <DomainDetail name={decodeURIComponent(params.name)} />}</Route>
            <Route path="/logs" component={Logs} />
            <Route path="/suppressions" component={Suppressions} />
            <Route path="/templates" component={Templates} />
            <Route path="/routes" component={Routes} />
            <Route path="/lists" component={Lists} />
            <Route path="/keys" component={ApiKeys} />
            <Route path="/reporting" component={Reporting} />
            <Route path="/inspect" component={Inspect} />
            <Route path="/previews" component={Previews} />
            <Route path="/dmarc" component={Dmarc} />
            <Route path="/blocklists" component={Blocklists} />
            <Route path="/health" component={Health} />
            <Route path="/placement" component={Placement} />
            <Route path="/spamtraps" component={SpamTraps} />
            <Route path="/postmaster" component={Postmaster} />
            <Route path="/alerts" component={Alerts} />
            {config!.outbox ? <Route path="/outbox" component={Outbox} /> : null}
            <Route path="/subaccounts" component={Subaccounts} />
            <Route path="/ips" component={Ips} />
            <Route path="/account" component={Account} />
            <Route>
              <Overview />
            </Route>
          </Switch>
        </Suspense>
      </main>
    </div>
  );
}

function App() {
  useAppState();
  return <Router hook={useHashLocation}>{currentSession() ? <Shell key={currentRegion().id} /> : <SignIn />}</Router>;
}

async function start(): Promise<void> {
  const root = document.getElementById('app')!;
  try {
    initState(await loadConfig());
    render(<App />, root);
  } catch (error) {
    render(
      <main id="main">
        <h1>Mailplane console</h1>
        <ErrorText error={(error as Error).message} />
      </main>,
      root,
    );
  }
}

void start();
