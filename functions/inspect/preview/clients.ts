/**
 * The preview client catalog (inspect contract §5.1, the emulated catalog it proposes). Each client
 * is rendered by Chromium after its profile's transforms (transforms/profiles.ts), so each says how
 * close that is (`fidelity`): WebKit-based Apple clients render nearly as Chromium does; webmail
 * and app clients are approximated from their documented rules; Outlook's Word engine cannot be
 * reproduced by a browser at all.
 */

export type Fidelity = 'high' | 'approximate' | 'experimental';
export type ProfileName = 'gmail-web' | 'gmail-app' | 'outlook-word' | 'outlook-web' | 'apple-webkit' | 'yahoo' | 'samsung' | 'gecko-like';

export interface Viewport {
  width: number;
  height: number;
  deviceScaleFactor: number;
  isMobile: boolean;
}

/** A client as the catalog lists it (contract §5.1), whoever renders it. */
export interface CatalogClient {
  id: string;
  client: string;
  os: string;
  category: 'Application' | 'Mobile' | 'Web';
  browser: string;
  /** The client is also shown turned sideways (the `horizontal` screenshots). */
  rotate: boolean;
  /** The client can be shown with images blocked (the `no_images` screenshots). */
  image_blocking: boolean;
  free: boolean;
  /** Used when a test names no clients. */
  default: boolean;
}

/** An emulated client: the catalog's fields, and how it is emulated. */
export interface PreviewClient extends CatalogClient {
  fidelity: Fidelity;
  profile: ProfileName;
  /** caniemail's `family.platform` whose latest tested version decides what is removed. */
  caniemail: string;
  dark: boolean;
  viewport: Viewport;
}

/** Webmail: the message pane of a 1280-wide browser window. */
const WEB: Viewport = { width: 1280, height: 900, deviceScaleFactor: 1, isMobile: false };
/** Desktop applications: a reading pane. */
const DESKTOP: Viewport = { width: 1024, height: 768, deviceScaleFactor: 1, isMobile: false };
/** Phones: an iPhone 15 / Pixel-sized screen in CSS pixels, at DPR 2 (3 would triple the PNG for no detail an email has). */
const PHONE: Viewport = { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true };

type Entry = Omit<PreviewClient, 'free' | 'ext'> & { free?: boolean };

const ENTRIES: Entry[] = [
  { id: 'gmail_chr26_win', client: 'Gmail', os: 'Windows', category: 'Web', browser: 'Chrome', rotate: false, image_blocking: true, default: true, fidelity: 'approximate', profile: 'gmail-web', caniemail: 'gmail.desktop-webmail', dark: false, viewport: WEB },
  { id: 'android10_gmailapp_pixel4_lm', client: 'Gmail App Pixel 4', os: 'Android 10', category: 'Mobile', browser: '', rotate: true, image_blocking: true, default: true, fidelity: 'approximate', profile: 'gmail-app', caniemail: 'gmail.android', dark: false, viewport: PHONE },
  { id: 'android10_gmailapp_pixel4_dm', client: 'Gmail App Pixel 4', os: 'Android 10 (Dark Mode)', category: 'Mobile', browser: '', rotate: false, image_blocking: false, default: false, fidelity: 'approximate', profile: 'gmail-app', caniemail: 'gmail.android', dark: true, viewport: PHONE },
  { id: 'iphone16gmail_18', client: 'Gmail App iPhone 16', os: 'iOS 18', category: 'Mobile', browser: '', rotate: true, image_blocking: true, default: false, fidelity: 'approximate', profile: 'gmail-app', caniemail: 'gmail.ios', dark: false, viewport: PHONE },
  { id: 'ol365_win', client: 'Outlook 365', os: 'Windows', category: 'Application', browser: '', rotate: false, image_blocking: true, default: true, fidelity: 'experimental', profile: 'outlook-word', caniemail: 'outlook.windows', dark: false, viewport: DESKTOP },
  { id: 'outlook16', client: 'Outlook 2016', os: 'Windows', category: 'Application', browser: '', rotate: false, image_blocking: true, default: false, fidelity: 'experimental', profile: 'outlook-word', caniemail: 'outlook.windows', dark: false, viewport: DESKTOP },
  { id: 'outlookcom_chr26_win', client: 'Outlook.com', os: 'Windows', category: 'Web', browser: 'Chrome', rotate: false, image_blocking: true, default: true, fidelity: 'approximate', profile: 'outlook-web', caniemail: 'outlook.outlook-com', dark: false, viewport: WEB },
  { id: 'appmail14', client: 'Apple Mail 14', os: 'macOS', category: 'Application', browser: '', rotate: false, image_blocking: true, default: true, fidelity: 'high', profile: 'apple-webkit', caniemail: 'apple-mail.macos', dark: false, viewport: DESKTOP },
  { id: 'iphone15_17', client: 'iPhone 15 Mail', os: 'iOS 17', category: 'Mobile', browser: '', rotate: true, image_blocking: true, default: true, fidelity: 'high', profile: 'apple-webkit', caniemail: 'apple-mail.ios', dark: false, viewport: PHONE },
  { id: 'iphone15_17_dm', client: 'iPhone 15 Mail', os: 'iOS 17 (Dark Mode)', category: 'Mobile', browser: '', rotate: false, image_blocking: false, default: false, fidelity: 'high', profile: 'apple-webkit', caniemail: 'apple-mail.ios', dark: true, viewport: PHONE },
  { id: 'yahoo_chr26_win', client: 'Yahoo! Mail', os: 'Windows', category: 'Web', browser: 'Chrome', rotate: false, image_blocking: true, default: true, fidelity: 'approximate', profile: 'yahoo', caniemail: 'yahoo.desktop-webmail', dark: false, viewport: WEB },
  { id: 'samsung_and13', client: 'Samsung Email', os: 'Android 13', category: 'Mobile', browser: '', rotate: false, image_blocking: true, default: false, fidelity: 'approximate', profile: 'samsung', caniemail: 'samsung-email.android', dark: false, viewport: PHONE },
  { id: 'thunderbird_win', client: 'Thunderbird', os: 'Windows', category: 'Application', browser: '', rotate: false, image_blocking: true, default: false, fidelity: 'approximate', profile: 'gecko-like', caniemail: 'thunderbird.macos', dark: false, viewport: DESKTOP },
];

export const PREVIEW_CLIENTS: ReadonlyMap<string, PreviewClient> = new Map(ENTRIES.map((entry) => [entry.id, { free: true, ...entry }]));

export const DEFAULT_CLIENT_IDS: readonly string[] = ENTRIES.filter((entry) => entry.default).map((entry) => entry.id);
