import { UAParser } from 'ua-parser-js';

/** Mailgun's client-info (contract §6.3) from a User-Agent, with ua-parser-js. */
export function clientInfo(userAgent: string) {
  const ua = new UAParser(userAgent).getResult();
  const device = ua.device.type === 'mobile' || ua.device.type === 'tablet' ? ua.device.type : ua.os.name ? 'desktop' : 'unknown';
  // Mail apps show up as "browsers" of their own name; a few are known by their engine strings.
  const mailApp = /(Thunderbird|Outlook|Microsoft Office|Apple ?Mail|Airmail|Spark)/i.exec(userAgent)?.[1];
  const robot = /(bot|crawler|spider|GoogleImageProxy|YahooMailProxy|preview)/i.test(userAgent);
  return {
    'client-type': robot ? 'robot' : mailApp ? 'email client' : ua.browser.name ? (device === 'mobile' ? 'mobile browser' : 'browser') : 'unknown',
    'client-os': ua.os.name ?? 'unknown',
    'device-type': device,
    'client-name': mailApp ?? ua.browser.name ?? 'unknown',
    'user-agent': userAgent,
    bot: robot ? 'generic' : '',
  };
}
