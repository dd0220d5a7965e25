import { existsSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

/** A region the console can switch to: what `console/config.json` lists. */
export interface ConsoleRegion {
  id: string;
  label: string;
  api: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/**
 * The console's Content-Security-Policy. Scripts come from the console's own files only (no
 * inline script, no eval) and it talks to its own API and the other regions' (connect-src). A
 * message's HTML is shown in a sandboxed srcdoc frame, which inherits this policy: hence inline
 * styles (emails are styled inline) and remote images, which the frame's own policy then blocks
 * until the user asks for them (console/src/ui/message-view.tsx).
 */
export function consolePolicy(apiOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https: http:",
    "font-src 'self' data:",
    `connect-src 'self' ${apiOrigins.join(' ')}`.trim(),
    "frame-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** Every spelling of a region's origin a browser may use on this machine. */
export function originsOf(api: string, hostNames: readonly string[]): string[] {
  const url = new URL(api);
  return [...new Set(hostNames.map((name) => `${url.protocol}//${name}:${url.port}`))];
}

export interface ConsoleHostOptions {
  /** The built console (console/dist); without its index.html the console is not served. */
  distDir: string;
  region: string;
  /** Both regions, known once both have started. */
  regions(): ConsoleRegion[];
  /** The names this machine answers to (127.0.0.1, localhost, HOST). */
  hostNames: readonly string[];
  /** Local mode's Outbox is there. */
  outbox: boolean;
}

/**
 * The console at `/` of each region: its files (console/dist), and `console/config.json`, which
 * tells it the regions' API URLs as the browser reached this one (127.0.0.1 or localhost). Only
 * GET and HEAD of `/`, `/index.html`, `/assets/…` and `/console/config.json`: every other
 * request is the API's, untouched.
 */
export function consoleHost(options: ConsoleHostOptions) {
  const assets = join(options.distDir, 'assets');
  const security = (apiOrigins: string[]) => ({
    'content-security-policy': consolePolicy(apiOrigins),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  });
  /** The regions as the browser reaches this host: the same host name, each region's port. */
  const regionsFor = (req: IncomingMessage): ConsoleRegion[] => {
    const asked = (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    return options.regions().map((r) => {
      if (!options.hostNames.includes(asked)) return r;
      const url = new URL(r.api);
      url.hostname = asked;
      return { ...r, api: url.origin };
    });
  };
  return (req: IncomingMessage, res: ServerResponse, url: URL): boolean => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = url.pathname;
    if (path === '/console/config.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      res.end(JSON.stringify({ region: options.region, regions: regionsFor(req), outbox: options.outbox }));
      return true;
    }
    let file: string | undefined;
    if (path === '/' || path === '/index.html') file = join(options.distDir, 'index.html');
    else if (path.startsWith('/assets/')) {
      const candidate = normalize(join(assets, decodeURIComponent(path.slice('/assets/'.length))));
      if (!candidate.startsWith(assets + sep)) return false;
      file = candidate;
    } else return false;
    req.resume();
    if (!existsSync(file) || !statSync(file).isFile()) {
      if (path.startsWith('/assets/')) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Not Found');
      } else {
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('The console has not been built: `npm start` builds it (console/dist).\n');
      }
      return true;
    }
    const body = readFileSync(file);
    const apiOrigins = regionsFor(req)
      .filter((r) => r.id !== options.region)
      .flatMap((r) => originsOf(r.api, options.hostNames));
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': String(body.length),
      // Assets are named by their content; the page itself must always be asked for again.
      'cache-control': path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      ...security(apiOrigins),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}

/**
 * CORS as the deployed API's is configured (lib/constructs/console.ts): requests from the
 * consoles' origins get the Access-Control headers, and their preflights are answered here, as
 * API Gateway answers them; requests from anywhere else are untouched.
 */
export function corsFor(allowed: () => readonly string[]) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const origin = req.headers.origin;
    if (!origin || !allowed().includes(origin)) return false;
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'Origin');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      req.resume();
      res.writeHead(204, {
        'access-control-allow-methods': 'GET, POST, PUT, DELETE, PATCH, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type, accept, x-mailgun-on-behalf-of, x-service-account-id, x-service-requestor, x-service-requestor-client',
        'access-control-max-age': '600',
      });
      res.end();
      return true;
    }
    return false;
  };
}
