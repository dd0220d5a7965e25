/**
 * Mailgun's recipient_provider (the mailbox provider: "Gmail", "Yahoo", "Outlook", "Apple") from a
 * recipient domain. Mailgun also recognises company domains hosted by these providers (by their MX
 * records); counters keep the recipient domain only, so those show under "Other" here.
 */
const PROVIDERS: Record<string, string> = {
  'gmail.com': 'Gmail',
  'googlemail.com': 'Gmail',
  'yahoo.com': 'Yahoo',
  'ymail.com': 'Yahoo',
  'rocketmail.com': 'Yahoo',
  'aol.com': 'AOL',
  'outlook.com': 'Outlook',
  'hotmail.com': 'Outlook',
  'live.com': 'Outlook',
  'msn.com': 'Outlook',
  'icloud.com': 'Apple',
  'me.com': 'Apple',
  'mac.com': 'Apple',
  'comcast.net': 'Comcast',
  'att.net': 'AT&T',
  'sbcglobal.net': 'AT&T',
  'bellsouth.net': 'AT&T',
  'verizon.net': 'Verizon',
  'gmx.com': 'GMX',
  'gmx.de': 'GMX',
  'gmx.net': 'GMX',
  'web.de': 'Web.de',
  'mail.ru': 'Mail.ru',
  'yandex.ru': 'Yandex',
  'yandex.com': 'Yandex',
  'qq.com': 'QQ',
  'orange.fr': 'Orange',
  'seznam.cz': 'Seznam',
  'proton.me': 'Proton',
  'protonmail.com': 'Proton',
  'zoho.com': 'Zoho',
};

/** Country variants of the big providers (yahoo.co.uk, hotmail.fr, outlook.de ...). */
const FAMILIES: Array<[RegExp, string]> = [
  [/^(yahoo|ymail)\.[a-z.]+$/, 'Yahoo'],
  [/^(hotmail|outlook|live|msn)\.[a-z.]+$/, 'Outlook'],
  [/^gmx\.[a-z.]+$/, 'GMX'],
  [/^yandex\.[a-z.]+$/, 'Yandex'],
];

export function providerOf(recipientDomain: string): string {
  const domain = recipientDomain.toLowerCase();
  return PROVIDERS[domain] ?? FAMILIES.find(([pattern]) => pattern.test(domain))?.[1] ?? 'Other';
}
