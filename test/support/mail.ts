import type { RegionHost } from '../../lib/local/region-host';
import { eventually, sesSendsOf } from './platform';

// Reading the mail a region handed to SES: its MIME and the tracking links in it.

/** The raw MIME of the copy of a message SES was handed for `recipient`, once it has been sent. */
export async function mimeOf(region: RegionHost, messageId: string, recipient: string): Promise<string> {
  return (await eventually(async () => sesSendsOf(region, messageId).find((m) => m.destinations.includes(recipient)))).raw.toString();
}

/** Undo quoted-printable soft breaks and =3D, and unfold header lines, before reading links. */
export const decoded = (mime: string) => mime.replace(/=\r?\n/g, '').replace(/=3D/g, '=').replace(/\r?\n[ \t]+/g, ' ');

/** The tracking links of one kind (o: open pixel, c: click, u: unsubscribe) that a region put in a message. */
export const linksIn = (region: RegionHost, mime: string, kind: string) => [...decoded(mime).matchAll(new RegExp(`${region.url}/${kind}/[A-Za-z0-9_.-]+`, 'g'))].map((m) => m[0]);

/** Safari on an iPhone: opens and clicks from it are counted as mobile, iOS. */
export const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
