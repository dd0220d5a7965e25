import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext, type SecureContext, type TLSSocket } from 'node:tls';
import type { AcmStandIn } from './acm-standin';
import type { ApiGatewayStandIn } from './apigateway-standin';

export interface TrackingTlsOptions {
  port: number;
  host: string;
  /** Custom domain names: which certificate and API serve a host name. */
  domains: ApiGatewayStandIn;
  /** Where the certificates (and their keys) are. */
  certificates: AcmStandIn;
  /** The APIs a domain name may map to, by id: each a request handler (the local gateway). */
  apis: Readonly<Record<string, (req: IncomingMessage, res: ServerResponse) => void>>;
  /** Handshakes wait for this: the region answers nothing before it is ready. */
  ready: Promise<void>;
}

export interface TrackingTls {
  port: number;
  /** Stops accepting, lets requests in flight finish (up to `drainMs`), then closes. */
  close(drainMs?: number): Promise<void>;
}

/**
 * Local mode's API Gateway regional endpoint for custom domain names: one HTTPS port where each
 * tracking host is served with its own certificate, picked by the name the client asks for (SNI),
 * and routed to the API its domain name maps to (the tracking API: the same handler as the HTTP
 * tracking routes). A host with no domain name gets no certificate, so the handshake fails, as
 * API Gateway's does. Certificates renewed by ACM are served from the next handshake on.
 */
export async function startTrackingTls(options: TrackingTlsOptions): Promise<TrackingTls> {
  const contexts = new Map<string, { serial: string; context: SecureContext }>();
  const contextFor = async (servername: string): Promise<SecureContext> => {
    await options.ready;
    const route = options.domains.route(servername);
    const pair = route && (await options.certificates.keyPair(route.certificateArn));
    if (!route || !pair) throw new Error(`no certificate for ${servername}`);
    const cached = contexts.get(route.certificateArn);
    if (cached?.serial === pair.serial) return cached.context;
    const context = createSecureContext({ key: pair.privateKeyPem, cert: `${pair.certificatePem.trim()}\n${pair.chainPem.trim()}\n` });
    contexts.set(route.certificateArn, { serial: pair.serial, context });
    return context;
  };

  let inFlight = 0;
  const idle: Array<() => void> = [];
  const server: Server = createServer(
    {
      SNICallback: (servername, done) => {
        contextFor(servername).then(
          (context) => done(null, context),
          (error: Error) => done(error),
        );
      },
    },
    (req, res) => {
      inFlight += 1;
      res.once('close', () => {
        inFlight -= 1;
        if (inFlight === 0) idle.splice(0).forEach((resolve) => resolve());
      });
      const servername = (req.socket as TLSSocket).servername;
      const route = typeof servername === 'string' ? options.domains.route(servername) : undefined;
      const api = route && options.apis[route.apiId];
      if (!api) {
        req.resume();
        res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Forbidden' }));
        return;
      }
      // API Gateway tells the integration the request came over HTTPS.
      req.headers['x-forwarded-proto'] = 'https';
      api(req, res);
    },
  );
  // A client that fails its handshake (no SNI, an unknown host) must not take the host down.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  let closing: Promise<void> | undefined;
  const close = async (drainMs: number) => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, drainMs);
        idle.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    server.closeAllConnections();
    await closed;
  };
  return {
    port: (server.address() as AddressInfo).port,
    close(drainMs = 10_000) {
      closing ??= close(drainMs);
      return closing;
    },
  };
}
