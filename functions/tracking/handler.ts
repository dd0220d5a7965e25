import { z } from 'zod/v3';
import { geolocate } from '../analytics/geolocation';
import { newEvent, recordEvent, type EventName } from '../events/event-store';
import { NotFound } from '../platform/errors';
import { schema } from '../platform/http/params';
import { areaHandler, operation, type ApiRequest } from '../platform/http/pipeline';
import { onBehalfOf } from '../accounts/on-behalf-of';
import { noticePage } from '../platform/http/public-page';
import { RawReply } from '../platform/http/reply';
import { unsubscribeMember } from '../lists/list-store';
import { addUnsubscribe } from '../suppressions/unsubscribes';
import { clientInfo } from './client-info';
import { trackingRoutes } from './routes';
import { verifyClaims, type TrackingClaims } from './tokens';

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const NO_STORE = { 'cache-control': 'no-store, max-age=0' };
const tokenInput = schema(() => z.object({ token: z.string() }));

/** A forged or altered link is simply not found; it reveals nothing. */
async function claimsOf(token: string): Promise<TrackingClaims> {
  const claims = await verifyClaims(token);
  if (!claims) throw new NotFound('Not Found');
  return claims;
}

async function record(req: ApiRequest, claims: TrackingClaims, name: EventName, fields: Record<string, unknown> = {}): Promise<void> {
  const ip = req.headers['x-forwarded-for']?.split(',')[0]?.trim() ?? '';
  await recordEvent(
    claims.a,
    claims.d,
    newEvent(name, {
      recipient: claims.r,
      'recipient-domain': claims.r.split('@')[1],
      ip,
      // Country from an offline table (analytics/geolocation.ts): the country dimension of opens and clicks.
      geolocation: geolocate(ip),
      'client-info': clientInfo(req.headers['user-agent'] ?? ''),
      message: { headers: { 'message-id': claims.m } },
      tags: claims.t ?? [],
      campaigns: [],
      'user-variables': {},
      ...fields,
    }),
  );
}

async function unsubscribe(req: ApiRequest, claims: TrackingClaims): Promise<void> {
  // A list's link unsubscribes its member from that list only, not from the domain's mail.
  if (claims.l) {
    await unsubscribeMember(claims.a, claims.l, claims.r);
    await record(req, claims, 'unsubscribed', { 'mailing-list': { address: claims.la ?? '', 'list-id': claims.l } });
    return;
  }
  const tags = claims.s === 'tags' && claims.t?.length ? claims.t : undefined;
  await addUnsubscribe(claims.a, claims.d, claims.r, tags);
  await record(req, claims, 'unsubscribed');
}

export const handler = areaHandler(trackingRoutes, {
  open: operation(tokenInput, async (req, input) => {
    const claims = await claimsOf(input.token);
    if (!req.headOnly) await record(req, claims, 'opened');
    return new RawReply(200, PIXEL, { 'content-type': 'image/gif', ...NO_STORE });
  }),
  click: operation(tokenInput, async (req, input) => {
    const claims = await claimsOf(input.token);
    if (!claims.u) throw new NotFound('Not Found');
    if (!req.headOnly) await record(req, claims, 'clicked', { url: claims.u });
    return new RawReply(302, '', { location: claims.u, ...NO_STORE });
  }),
  unsubscribe: operation(tokenInput, async (req, input) => {
    const claims = await claimsOf(input.token);
    if (!req.headOnly) await unsubscribe(req, claims);
    return noticePage('Unsubscribed', 'You have been unsubscribed.');
  }),
  // RFC 8058: mail clients POST `List-Unsubscribe=One-Click` to the List-Unsubscribe URL.
  unsubscribeOneClick: operation(tokenInput, async (req, input) => {
    await unsubscribe(req, await claimsOf(input.token));
    return new RawReply(200, '', NO_STORE);
  }),
}, { onBehalfOf });
