import { render } from 'preact';
import { lazy, Suspense } from 'preact/compat';
import { useState } from 'preact/hooks';
import { Link, Route, Router, Switch, useLocation } from 'wouter-preact';
import { useHashLocation } from 'wouter-preact/use-hash-location';
import { callAhead } from './api';
import { loadConfig } from './config';
import { listSubaccounts, AccountSwitch } from './account-switch';
import { can, currentRegion, currentSession, initState, setRegion, signIn, signOut, useAppState } from './session';
import { listDomains } from './ui/domain-picker';
import { ErrorText, Loading } from './ui/widgets';
import { loadAccount } from './pages/account.load';
import { loadAlerts } from './pages/alerts.load';
import { loadBlocklists } from './pages/blocklists.load';
import { loadDmarc } from './pages/dmarc.load';
import { loadHealth } from './pages/health.load';
import { loadIps } from './pages/ips.load';
import { loadKeys } from './pages/keys.load';
import { loadLists } from './pages/lists.load';
import { loadLogs } from './pages/logs.load';
import { loadOutbox } from './pages/outbox.load';
import { loadOverview } from './pages/overview.load';
import { loadPlacement } from './pages/placement.load';
import { loadPostmaster } from './pages/postmaster.load';
import { loadPreviews } from './pages/previews.load';
import { loadReporting } from './pages/reporting.load';
import { loadRoutes } from './pages/routes.load';
import { loadSpamTraps } from './pages/spamtraps.load';
import { loadSuppressions } from './pages/suppressions.load';
import { loadTemplates } from './pages/templates.load';
import './styles.css';

// Each page is its own chunk, loaded when its link is first clicked (or its address first opened).
const pages = {
  overview: () => import('./pages/overview'),
  domains: () => import('./pages/domains'),
  domainDetail: () => import('./pages/domain-detail'),
  logs: () => import('./pages/logs'),
  outbox: () => import('./pages/outbox'),
  suppressions: () => import('./pages/suppressions'),
  templates: () => import('./pages/templates'),
  routes: () => import('./pages/routes'),
  lists: () => import('./pages/lists'),
  keys: () => import('./pages/keys'),
  reporting: () => import('./pages/reporting'),
  inspect: () => import('./pages/inspect'),
  previews: () => import('./pages/previews'),
  subaccounts: () => import('./pages/subaccounts'),
  ips: () => import('./pages/ips'),
  account: () => import('./pages/account'),
  dmarc: () => import('./pages/dmarc'),
  blocklists: () => import('./pages/blocklists'),
  health: () => import('./pages/health'),
  placement: () => import('./pages/placement'),
  spamtraps: () => import('./pages/spamtraps'),
  postmaster: () => import('./pages/postmaster'),
  alerts: () => import('./pages/alerts'),
};
const Overview = lazy(pages.overview);
const Domains = lazy(pages.domains);
const DomainDetail = lazy(pages.domainDetail);
const Logs = lazy(pages.logs);
const Outbox = lazy(pages.outbox);
const Suppressions = lazy(pages.suppressions);
const Templates = lazy(pages.templates);
const Routes = lazy(pages.routes);
const Lists = lazy(pages.lists);
const ApiKeys = lazy(pages.keys);
const Reporting = lazy(pages.reporting);
const Inspect = lazy(pages.inspect);
const Previews = lazy(pages.previews);
const Subaccounts = lazy(pages.subaccounts);
const Ips = lazy(pages.ips);
const Account = lazy(pages.account);
const Dmarc = lazy(pages.dmarc);
const Blocklists = lazy(pages.blocklists);
const Health = lazy(pages.health);
const Placement = lazy(pages.placement);
const SpamTraps = lazy(pages.spamtraps);
const Postmaster = lazy(pages.postmaster);
const Alerts = lazy(pages.alerts);

interface NavItem {
  href: string;
  name: string;
  shown?: () => boolean;
  /** The heading the link is listed under; none for the sending and receiving pages. */
  group?: string;
  /** The page's chunk. */
  chunk: () => Promise<unknown>;
  /** What the page asks the API for as it opens, started with its chunk when its link is clicked. */
  load?: () => void;
}

function navItems(outbox: boolean): NavItem[] {
  return [
    { href: '/overview', name: 'Overview', chunk: pages.overview, load: loadOverview },
    { href: '/domains', name: 'Domains', chunk: pages.domains, load: () => void listDomains() },
    { href: '/logs', name: 'Logs', chunk: pages.logs, load: loadLogs },
    { href: '/suppressions', name: 'Suppressions', chunk: pages.suppressions, load: loadSuppressions },
    { href: '/templates', name: 'Templates', chunk: pages.templates, load: loadTemplates },
    { href: '/routes', name: 'Routes', chunk: pages.routes, load: loadRoutes },
    { href: '/lists', name: 'Mailing lists', chunk: pages.lists, load: loadLists },
    { href: '/keys', name: 'API keys', shown: () => can('admin'), chunk: pages.keys, load: loadKeys },
    { href: '/reporting', name: 'Reporting', chunk: pages.reporting, load: loadReporting },
    { href: '/inspect', name: 'Inspect', group: 'Inspect', chunk: pages.inspect, load: () => void listDomains() },
    { href: '/previews', name: 'Previews', group: 'Inspect', chunk: pages.previews, load: loadPreviews },
    { href: '/dmarc', name: 'DMARC', group: 'Optimize', chunk: pages.dmarc, load: loadDmarc },
    { href: '/blocklists', name: 'Blocklists', group: 'Optimize', chunk: pages.blocklists, load: loadBlocklists },
    { href: '/health', name: 'Health score', group: 'Optimize', chunk: pages.health, load: loadHealth },
    { href: '/placement', name: 'Inbox placement', group: 'Optimize', chunk: pages.placement, load: loadPlacement },
    { href: '/spamtraps', name: 'Spam traps', group: 'Optimize', chunk: pages.spamtraps, load: loadSpamTraps },
    { href: '/postmaster', name: 'Postmaster', group: 'Optimize', chunk: pages.postmaster, load: loadPostmaster },
    { href: '/alerts', name: 'Alerts', group: 'Optimize', chunk: pages.alerts, load: loadAlerts },
    ...(outbox ? [{ href: '/outbox', name: 'Outbox', chunk: pages.outbox, load: loadOutbox }] : []),
    { href: '/subaccounts', name: 'Subaccounts', group: 'Account', chunk: pages.subaccounts, load: () => void listSubaccounts() },
    { href: '/ips', name: 'IPs', group: 'Account', chunk: pages.ips, load: loadIps },
    { href: '/account', name: 'Account settings', group: 'Account', chunk: pages.account, load: loadAccount },
  ];
}

/**
 * Opens a page the way a route loader does: its chunk and its first API calls start together, at
 * the click, rather than the calls waiting for the chunk and the render after it; the page's own
 * calls then take those replies (api.ts's callAhead).
 */
function startOpening(item: NavItem): void {
  void item.chunk().catch(() => undefined);
  callAhead(item.load ?? (() => undefined));
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
                    <Link
                      href={item.href}
                      aria-current={location === item.href || location.startsWith(`${item.href}/`) ? 'page' : undefined}
                      onClick={() => {
                        // The router calls this for a click it navigates on (a modified click opens a tab).
                        if (location !== item.href) startOpening(item);
                        onPick();
                      }}
                    >
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
