import { microsoftSpam, parseAuthenticationResults, receiverAuthResults } from '../../../functions/optimize/inbox/auth-results';
import { fromRspamd, parseSpamdReply } from '../../../functions/optimize/inbox/content-score';
import { headerList } from '../../../functions/optimize/inbox/imap-search';
import { keptHeaders } from '../../../functions/optimize/inbox/poll-task';
import { deliveryStats, pendingSeed, type SeedOutcome } from '../../../functions/optimize/inbox/results';
import { chooseSeeds } from '../../../functions/optimize/inbox/seed-lists';
import type { SeedMailboxItem } from '../../../functions/optimize/inbox/seed-mailboxes';

const headers = (text: string) => headerList(Buffer.from(`${text}\r\n\r\nbody`));

describe('Authentication-Results (RFC 8601)', () => {
  test('reads each method of the topmost receiver header, past comments and folding', () => {
    const parsed = parseAuthenticationResults('mx.google.com;\r\n       dkim=pass header.i=@example.com header.s=s1 (comment; with=semicolon);\r\n       spf=softfail (google.com: domain of x) smtp.mailfrom=x;\r\n       dmarc=fail (p=QUARANTINE sp=NONE dis=QUARANTINE) header.from=example.com');
    expect(parsed.authservId).toBe('mx.google.com');
    expect(Object.fromEntries(parsed.results)).toEqual({ dkim: 'pass', spf: 'softfail', dmarc: 'fail' });
  });

  test("the receiver's verdicts win over the sender's own header below them; softfail is a failure, none is not set", () => {
    const list = headers('Authentication-Results: mx.google.com; spf=softfail smtp.mailfrom=a; dkim=none; dmarc=pass\r\nAuthentication-Results: amazonses.com; spf=pass; dkim=pass');
    expect(receiverAuthResults(list, ['amazonses.com'])).toEqual({ spf: 'fail', dkim: 'missing/not-set', dmarc: 'pass' });
    expect(receiverAuthResults(headers('Subject: no verdicts'))).toEqual({ spf: 'missing/not-set', dkim: 'missing/not-set', dmarc: 'missing/not-set' });
  });

  test("Microsoft's SCL, BCL and category, only when its headers are there", () => {
    expect(microsoftSpam(headers('X-Forefront-Antispam-Report: CIP:192.0.2.1;CTRY:;LANG:en;SCL:1;SRV:;IPV:NLI;SFV:NSPM;CAT:NONE;\r\nX-Microsoft-Antispam: BCL:7;'))).toEqual({ scl: 1, bcl: 7, category: 'NONE' });
    expect(microsoftSpam(headers('Subject: hi'))).toBeUndefined();
  });
});

describe('content scores', () => {
  test("spamd's REPORT answer, with its rule table", () => {
    const reply = [
      'SPAMD/1.1 0 EX_OK',
      'Content-length: 400',
      'Spam: True ; 6.2 / 5.0',
      '',
      'Content analysis details:   (6.2 points, 5.0 required)',
      '',
      ' pts rule name              description',
      '---- ---------------------- --------------------------------------------------',
      ' 3.5 BAYES_99               BODY: Bayes spam probability is 99 to 100%',
      '                            [score: 1.0000]',
      ' 2.7 MISSING_MID            Missing Message-Id: header',
      '',
    ].join('\r\n');
    expect(parseSpamdReply(reply)).toEqual({
      is_spam: true,
      score: 6.2,
      required: 5,
      rules: [
        { name: 'BAYES_99', points: 3.5, short_description: 'BODY: Bayes spam probability is 99 to 100%', long_description: 'BODY: Bayes spam probability is 99 to 100% [score: 1.0000]' },
        { name: 'MISSING_MID', points: 2.7, short_description: 'Missing Message-Id: header', long_description: 'Missing Message-Id: header' },
      ],
    });
    expect(() => parseSpamdReply('SPAMD/1.1 76 Bad header line')).toThrow(/refused/);
  });

  test("rspamd's /checkv2 answer; a reply without a score is an error, not a zero", () => {
    expect(fromRspamd({ action: 'add header', score: 8.5, required_score: 15, symbols: { R_SPF_FAIL: { name: 'R_SPF_FAIL', score: 1, description: 'SPF fail' } } })).toEqual({
      is_spam: true,
      score: 8.5,
      required: 15,
      rules: [{ name: 'R_SPF_FAIL', points: 1, short_description: 'SPF fail', long_description: 'SPF fail' }],
    });
    expect(() => fromRspamd({ action: 'no action' })).toThrow(/without a score/);
  });
});

const seed = (email: string, provider: string): SeedMailboxItem => ({ email, provider, imapHost: 'h', imapPort: 993, imapTls: true, imapUser: email, auth: 'password', secretSealed: 'x', firstName: '', lastName: '', createdAt: '', updatedAt: '' });

test('seeds are chosen by provider, by the seed filter and at most N per provider', () => {
  const all = [seed('a1@gmail.com', 'gmail.com'), seed('a2@gmail.com', 'gmail.com'), seed('b1@outlook.com', 'outlook.com'), seed('vip-c1@yahoo.com', 'yahoo.com')];
  expect(chooseSeeds(all, { seedFilter: '', providerFilter: [], maxSeedsPerProvider: 1 }, false).map((s) => s.email)).toEqual(['a1@gmail.com', 'b1@outlook.com', 'vip-c1@yahoo.com']);
  expect(chooseSeeds(all, { seedFilter: '^vip-', providerFilter: [], maxSeedsPerProvider: 0 }, false).map((s) => s.email)).toEqual(['vip-c1@yahoo.com']);
  expect(chooseSeeds(all, { seedFilter: '', providerFilter: ['Outlook.com'], maxSeedsPerProvider: 0 }, false).map((s) => s.email)).toEqual(['b1@outlook.com']);
  expect(() => chooseSeeds(all, { seedFilter: '(', providerFilter: [], maxSeedsPerProvider: 0 }, false)).toThrow(/seed_filter/);
});

test('delivery_stats counts per provider and over all', () => {
  const outcome = (email: string, provider: string, change: Partial<SeedOutcome>): SeedOutcome => ({ ...pendingSeed(email, provider), ...change });
  const stats = deliveryStats([
    outcome('a@g', 'gmail.com', { state: 'delivered', destination: 'inbox', category: 'promotions' }),
    outcome('b@g', 'gmail.com', { state: 'delivered', destination: 'spam' }),
    outcome('c@o', 'outlook.com', { state: 'missing' }),
    outcome('d@y', 'yahoo.com', {}),
  ]);
  expect(stats['all']).toEqual({ delivered: 2, missing: 1, pending: 1, spam: 1, inbox: 1, total: 4, provider: 'all', categories: { promotions: 1 } });
  expect(stats['gmail.com']).toMatchObject({ total: 2, inbox: 1, spam: 1 });
  expect(deliveryStats([])).toEqual({ all: { delivered: 0, missing: 0, pending: 0, spam: 0, inbox: 0, total: 0, provider: 'all', categories: {} } });
});

test("a seed's headers are kept within their share of the result, the receiver's verdicts first, in the receiver's order", () => {
  const headers = [
    { key: 'Received', value: 'x'.repeat(3000) },
    { key: 'Authentication-Results', value: 'mx.google.com; spf=pass' },
    { key: 'Subject', value: 'Hi' },
    { key: 'X-Forefront-Antispam-Report', value: 'SCL:1;' },
  ];
  expect(keptHeaders(headers, 200)).toEqual([headers[1], headers[2], headers[3]]);
  expect(keptHeaders(headers, 4096).map((h) => h.key)).toEqual(['Received', 'Authentication-Results', 'Subject', 'X-Forefront-Antispam-Report']);
  expect(keptHeaders(headers, 4096)[0]!.value.length).toBe(1000);
});
