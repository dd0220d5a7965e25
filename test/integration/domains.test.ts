import { getItem, putItem, updateItem } from '../../functions/data/store';
import { deleteIdentity } from '../../functions/domains/ses-identity';
import type { LocalPlatform } from '../../lib/local/platform';
import { call, primaryAccountId, sdk, sdkError, startTestPlatform } from '../support/platform';
import { scanTable } from '../support/table';
import { domainKeys, type DomainClaimItem } from '../../functions/domains/domain-store';
import { accountKeys } from '../../functions/accounts/account-store';

// Domain management through the official SDK, as contract §3.1 describes it.
let platform: LocalPlatform;
let mg: ReturnType<typeof sdk>;

beforeAll(async () => {
  platform = await startTestPlatform();
  mg = sdk(platform.us.url);
});
afterAll(() => platform.close());

const create = (name: string, extra: Record<string, string> = {}) => mg.domains.create({ name, dkim_key_size: '1024', ...extra } as never);

describe('sandbox domain', () => {
  it('exists from the start, active, and cannot be deleted', async () => {
    const sandbox = (await mg.domains.list()).find((d) => d.type === 'sandbox');
    expect(sandbox).toMatchObject({ state: 'active', is_disabled: false });
    expect(sandbox!.name).toMatch(/^sandbox[0-9a-f]{32}\.sandbox\.localhost$/);
    const error = await sdkError(mg.domains.destroy(sandbox!.name));
    expect(error).toEqual({ status: 400, details: 'The sandbox domain cannot be deleted' });
  });
});

describe('create', () => {
  it('returns the domain and the DNS records SES needs, unverified', async () => {
    const domain = await create('Create.Example.com', { smtp_password: 'secret123-long-enough', wildcard: 'true', spam_action: 'tag' });
    expect(domain).toMatchObject({
      name: 'create.example.com',
      state: 'unverified',
      type: 'custom',
      wildcard: true,
      spam_action: 'tag',
      smtp_login: 'postmaster@create.example.com',
      web_prefix: 'email',
      web_scheme: 'http',
      is_disabled: false,
    });
    expect(domain.id).toMatch(/^[0-9a-f]{24}$/);
    expect(Number.isNaN(domain.created_at.getTime())).toBe(false);
    // The SDK copies smtp_password whether or not it came; the wire must not carry it.
    const raw = await call(`${platform.us.url}/v4/domains/create.example.com`);
    expect(raw.json.domain).not.toHaveProperty('smtp_password');
    const records = domain.sending_dns_records as unknown as Array<Record<string, unknown>>;
    expect(records.map((r) => [r.record_type, r.name])).toEqual([
      ['TXT', 'bounce.create.example.com'],
      ['MX', 'bounce.create.example.com'],
      ['TXT', 's1._domainkey.create.example.com'],
      ['CNAME', 'email.create.example.com'],
    ]);
    expect(records[0]).toMatchObject({ value: 'v=spf1 include:amazonses.com ~all', valid: 'unknown', cached: [], is_active: true });
    expect(records[1]).toMatchObject({ value: 'feedback-smtp.us-east-1.amazonses.com', priority: '10' });
    expect(records[2]!.value).toMatch(/^k=rsa; p=[A-Za-z0-9+/]+=*$/);
    expect(domain.receiving_dns_records).toEqual([
      expect.objectContaining({ record_type: 'MX', name: 'create.example.com', value: 'inbound-smtp.us-east-1.amazonaws.com', priority: '10' }),
    ]);
  });

  it('registers the SES identity with our DKIM key and custom MAIL FROM', async () => {
    await create('ses.example.com', { dkim_selector: 'mg2024' });
    expect(platform.us.ses.identity('ses.example.com')).toMatchObject({ dkimOrigin: 'EXTERNAL', selector: 'mg2024', mailFromDomain: 'bounce.ses.example.com' });
  });

  it('stores the DKIM private key sealed, never in clear', async () => {
    await create('sealed.example.com');
    const items = await scanTable(platform.us);
    const key = items.find((item) => item.signingDomain === 'sealed.example.com' && 'privateKeySealed' in item)!;
    expect(key.privateKeySealed).toMatch(/^v1\./);
    expect(JSON.stringify(items)).not.toContain('PRIVATE KEY');
  });

  it('publishes SES Easy DKIM CNAMEs under automatic sender security', async () => {
    const domain = await create('auto.example.com', { use_automatic_sender_security: 'true' });
    const tokens = platform.us.ses.identity('auto.example.com')!.tokens;
    expect(tokens).toHaveLength(3);
    const dkim = (domain.sending_dns_records as unknown as Array<Record<string, string>>).filter((r) => r.name.includes('._domainkey.'));
    expect(dkim).toEqual(
      tokens.map((token) => expect.objectContaining({ record_type: 'CNAME', name: `${token}._domainkey.auto.example.com`, value: `${token}.dkim.amazonses.com` })),
    );
  });

  it('refuses a name that exists, in this account or any other', async () => {
    await create('taken.example.com');
    expect(await sdkError(create('taken.example.com'))).toEqual({ status: 400, details: 'This domain name is already taken' });
  });

  it.each([
    [{ name: 'not a domain' }, "Invalid parameter 'name': must be a fully qualified domain name"],
    [{ name: 'pw.example.com', smtp_password: 'abc' }, "Invalid parameter 'smtp_password': Password is too short. It must be between 15 and 32 characters (an SMTP password is a single factor: NIST SP 800-63B-4 asks at least 15)."],
    [{ name: 'spam.example.com', spam_action: 'drop' }, "Invalid parameter 'spam_action': must be one of disabled, tag, block"],
    [{ name: 'bits.example.com', dkim_key_size: '4096' }, "Invalid parameter 'dkim_key_size': must be 1024 or 2048"],
    [{ name: 'https.example.com', web_scheme: 'https' }, 'web_scheme https needs an active tracking certificate for email.https.example.com'],
    [{ name: 'ttl.example.com', message_ttl: '0' }, 'message_ttl must be between 1 and 604800 seconds'],
    [{ name: 'pool.example.com', pool_id: 'abc' }, 'IP pool abc not found'],
    [{ name: 'root.example.com', force_root_dkim_host: 'true' }, 'The DKIM host must be the domain itself: Amazon SES signs with d= the sending domain'],
  ])('refuses %j with a clear message and creates nothing', async (form, message) => {
    expect(await sdkError(mg.domains.create(form as never))).toEqual({ status: 400, details: message });
    const names = (await mg.domains.list({ limit: 1000 } as never)).map((d) => d.name);
    expect(names).not.toContain(form.name);
  });

  it('accepts urlencoded bodies (mailgun-go) as well as multipart', async () => {
    const res = await call(`${platform.us.url}/v4/domains`, { method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'name=form.example.com&dkim_key_size=1024&require_tls=yes' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ message: 'Domain DNS records have been created', domain: { name: 'form.example.com', require_tls: true } });
  });
});

describe('get', () => {
  it('adds dkim_host and mailfrom_host with h:extended and drops records with h:with_dns=false', async () => {
    await create('get.example.com');
    const domain = await mg.domains.get('get.example.com', { extended: true, with_dns: false } as never);
    expect(domain).toMatchObject({ dkim_host: 's1._domainkey.get.example.com', mailfrom_host: 'bounce.get.example.com', sending_dns_records: null, receiving_dns_records: null });
    const plain = await mg.domains.get('get.example.com');
    expect(plain).not.toHaveProperty('dkim_host');
    expect(plain.sending_dns_records).toHaveLength(4);
  });

  it('answers 404 Domain not found for unknown domains', async () => {
    expect(await sdkError(mg.domains.get('nowhere.example.com'))).toEqual({ status: 404, details: 'Domain not found' });
  });
});

describe('update', () => {
  it('changes each field by its rule and keeps the rest', async () => {
    await create('update.example.com');
    const updated = await mg.domains.update('update.example.com', {
      spam_action: 'block',
      wildcard: true,
      require_tls: true,
      skip_verification: true,
      message_ttl: '3600',
      mailfrom_host: 'MAIL',
      smtp_password: 'another-secret-pass',
    } as never);
    expect(updated).toMatchObject({ spam_action: 'block', wildcard: true, require_tls: true, skip_verification: true, web_prefix: 'email' });
    const extended = await mg.domains.get('update.example.com', { extended: true, with_dns: true } as never);
    expect(extended).toMatchObject({ mailfrom_host: 'mail.update.example.com' });
    expect(platform.us.ses.identity('update.example.com')!.mailFromDomain).toBe('mail.update.example.com');
    const raw = await call(`${platform.us.url}/v4/domains/update.example.com`);
    expect((raw.json.domain as Record<string, unknown>).message_ttl).toBe(3600);
  });

  it('refuses a web_prefix whose CNAME is not in DNS, and changes nothing', async () => {
    await create('prefix.example.com');
    const error = await sdkError(mg.domains.update('prefix.example.com', { web_prefix: 'track', spam_action: 'tag' } as never));
    expect(error.status).toBe(400);
    expect(error.details).toBe('The CNAME record track.prefix.example.com must point to localhost before web_prefix can change');
    expect(await mg.domains.get('prefix.example.com')).toMatchObject({ web_prefix: 'email', spam_action: 'disabled' });
  });

  it('switches to SES-managed DKIM and back, asking for re-verification', async () => {
    await create('switch.example.com');
    const auto = await mg.domains.update('switch.example.com', { use_automatic_sender_security: true } as never);
    expect(auto).toMatchObject({ use_automatic_sender_security: true, state: 'unverified' });
    expect(platform.us.ses.identity('switch.example.com')!.dkimOrigin).toBe('AWS_SES');
    const back = await mg.domains.update('switch.example.com', { use_automatic_sender_security: false } as never);
    expect((back.sending_dns_records as unknown as Array<Record<string, string>>).some((r) => r.name === 's1._domainkey.switch.example.com')).toBe(true);
    expect(platform.us.ses.identity('switch.example.com')!.dkimOrigin).toBe('EXTERNAL');
  });
});

describe('list', () => {
  beforeAll(async () => {
    for (const name of ['list-a.test', 'list-b.test', 'list-c.test']) await create(name);
  });

  it('pages with skip and limit and counts the whole match', async () => {
    const page = await call(`${platform.us.url}/v4/domains?search=list-&limit=2&skip=1`);
    expect(page.json.total_count).toBe(3);
    expect((page.json.items as Array<{ name: string }>).map((d) => d.name)).toEqual(['list-b.test', 'list-c.test']);
  });

  it('sorts by name descending and filters by state', async () => {
    const names = (await mg.domains.list({ search: 'list-', sort: 'name:desc' } as never)).map((d) => d.name);
    expect(names).toEqual(['list-c.test', 'list-b.test', 'list-a.test']);
    const active = await mg.domains.list({ state: 'active' } as never);
    expect(active.every((d) => d.state === 'active')).toBe(true);
    expect(active.some((d) => d.type === 'sandbox')).toBe(true);
  });

  it('refuses limits above 1000', async () => {
    const res = await call(`${platform.us.url}/v4/domains?limit=1001`);
    expect(res).toMatchObject({ status: 400, json: { message: "Invalid parameter 'limit': can't be larger than 1000" } });
  });
});

describe('delete', () => {
  it('removes the domain, its SES identity and its keys, and frees the name', async () => {
    await create('gone.example.com');
    expect(await mg.domains.destroy('gone.example.com')).toEqual({ message: 'Domain has been deleted' });
    expect(platform.us.ses.identity('gone.example.com')).toBeUndefined();
    expect((await sdkError(mg.domains.get('gone.example.com'))).status).toBe(404);
    await expect(create('gone.example.com')).resolves.toMatchObject({ name: 'gone.example.com' });
  });
});

describe('delete takes what the domain owns with it', () => {
  it('removes its templates, suppression lists and webhooks, so a re-created domain starts empty', async () => {
    await create('owned.example.com');
    expect((await call(`${platform.us.url}/v3/owned.example.com/templates`, { method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'name=t1&template=hi' })).status).toBe(200);
    expect(await mg.webhooks.create('owned.example.com', 'delivered', 'http://127.0.0.1:9/hook', false)).toMatchObject({ urls: ['http://127.0.0.1:9/hook'] });
    expect((await call(`${platform.us.url}/v3/owned.example.com/bounces`, { method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'address=b@example.com' })).status).toBe(200);
    await mg.domains.destroy('owned.example.com');
    await create('owned.example.com');
    expect((await call(`${platform.us.url}/v3/owned.example.com/templates`)).json.items).toEqual([]);
    expect((await call(`${platform.us.url}/v3/owned.example.com/bounces`)).json.items).toEqual([]);
    expect(await mg.webhooks.list('owned.example.com', {})).toEqual({});
  });
});

describe('regions', () => {
  it('keeps each region’s domains to itself', async () => {
    await create('us-only.example.com');
    const eu = sdk(platform.eu.url);
    expect((await sdkError(eu.domains.get('us-only.example.com'))).status).toBe(404);
    await expect(eu.domains.create({ name: 'us-only.example.com', dkim_key_size: '1024' } as never)).resolves.toMatchObject({
      name: 'us-only.example.com',
    });
    const euRecords = (await eu.domains.get('us-only.example.com')).sending_dns_records as unknown as Array<Record<string, string>>;
    expect(euRecords[1]!.value).toBe('feedback-smtp.eu-west-1.amazonses.com');
  });
});

describe('verify', () => {
  it('registers the SES identity again when SES has lost it', async () => {
    await create('lost.example.com', { dkim_selector: 'k7' });
    await platform.us.run(() => deleteIdentity('lost.example.com'));
    await mg.domains.verify('lost.example.com');
    expect(platform.us.ses.identity('lost.example.com')).toMatchObject({ dkimOrigin: 'EXTERNAL', selector: 'k7', mailFromDomain: 'bounce.lost.example.com' });
  });
});

describe('delete refusals', () => {
  const patch = (name: string, set: Record<string, unknown>) =>
    platform.us.run(async () => {
      const { accountId } = (await getItem<DomainClaimItem>(domainKeys.domainClaim(name)))!;
      await updateItem(domainKeys.domain(accountId, name), set);
    });

  it('refuses a disabled domain', async () => {
    await create('disabled.example.com');
    await patch('disabled.example.com', { isDisabled: true });
    expect(await sdkError(mg.domains.destroy('disabled.example.com'))).toEqual({ status: 400, details: 'A disabled domain cannot be deleted' });
    expect((await mg.domains.get('disabled.example.com')).state).toBe('disabled');
  });

  it('refuses the DKIM authority of another domain', async () => {
    await create('authority.example.com');
    await create('child.authority.example.com');
    await patch('child.authority.example.com', { dkimAuthority: 'authority.example.com' });
    expect(await sdkError(mg.domains.destroy('authority.example.com'))).toEqual({
      status: 400,
      details: 'Domain is the DKIM authority of child.authority.example.com',
    });
    const listed = await call(`${platform.us.url}/v4/domains?authority=authority.example.com`);
    expect((listed.json.items as Array<{ name: string }>).map((d) => d.name)).toEqual(['authority.example.com', 'child.authority.example.com']);
  });
});

describe('X-Mailgun-On-Behalf-Of', () => {
  it('acts on a subaccount of the caller, and only on one', async () => {
    const subaccountId = 'a1b2c3d4e5f6a1b2c3d4e5f6';
    const parentId = await primaryAccountId(platform.us);
    await platform.us.run(async () => {
      await putItem(accountKeys.account(subaccountId), { accountId: subaccountId, name: 'sub', parentId, status: 'open', createdAt: new Date().toISOString() });
    });
    const asSub = { headers: { 'X-Mailgun-On-Behalf-Of': subaccountId } };
    const empty = await call(`${platform.us.url}/v4/domains`, asSub);
    expect(empty.json).toEqual({ total_count: 0, items: [] });
    const created = await call(`${platform.us.url}/v4/domains`, { ...asSub, method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'name=sub.example.com&dkim_key_size=1024' });
    expect(created.status).toBe(200);
    expect((await sdkError(mg.domains.get('sub.example.com'))).status).toBe(404);
    const unknown = await call(`${platform.us.url}/v4/domains`, { headers: { 'X-Mailgun-On-Behalf-Of': 'ffffffffffffffffffffffff' } });
    expect(unknown).toMatchObject({ status: 404, json: { message: 'Subaccount not found' } });
  });
});

describe('connection, web prefix and IPs', () => {
  it('reads and changes the connection settings, answering both spellings', async () => {
    await create('conn.example.com');
    // mailgun.js hands back the body as is (contract 3.1).
    expect(await mg.domains.getConnection('conn.example.com')).toEqual({ connection: { require_tls: false, skip_verification: false } });
    const updated = await mg.domains.updateConnection('conn.example.com', { require_tls: true, skip_verification: true } as never);
    expect(updated).toMatchObject({ require_tls: true, skip_verification: true });
    const raw = await call(`${platform.us.url}/v3/domains/conn.example.com/connection`, { method: 'PUT', body: 'require_tls=no', contentType: 'application/x-www-form-urlencoded' });
    expect(raw.json).toMatchObject({ 'require-tls': false, 'skip-verification': true, require_tls: false });
    expect((await call(`${platform.us.url}/v3/domains/conn.example.com/connection`, { method: 'PUT', body: 'require_tls=maybe', contentType: 'application/x-www-form-urlencoded' })).status).toBe(400);
    expect(await mg.domains.getConnection('conn.example.com')).toEqual({ connection: { require_tls: false, skip_verification: true } });
  });

  it('moves the web prefix only to a host whose CNAME points at the platform', async () => {
    await create('prefix2.example.com');
    const refused = await call(`${platform.us.url}/v3/domains/prefix2.example.com/web_prefix?web_prefix=links`, { method: 'PUT' });
    expect(refused.status).toBe(400);
    expect(String(refused.json.message)).toMatch(/CNAME record links\.prefix2\.example\.com/);
    expect((await mg.domains.get('prefix2.example.com')).web_prefix).toBe('email');
  });

  it('assigns the account\'s dedicated IPs through mailgun.js and refuses others (more in ip-pools.test.ts)', async () => {
    await create('ips.example.com');
    expect(await mg.domains.getIps('ips.example.com')).toEqual([]);
    expect(await sdkError(mg.domains.assignIp('ips.example.com', '203.0.113.10'))).toMatchObject({ status: 400, details: 'IP 203.0.113.10 is not a dedicated IP of this account' });
    expect(await sdkError(mg.domains.linkIpPool('ips.example.com', 'pool-1'))).toMatchObject({ status: 400, details: 'IP pool pool-1 not found' });
    expect(await mg.domains.assignIp('ips.example.com', '192.0.2.10')).toMatchObject({ status: 200, body: { message: 'success' } });
    expect(await mg.domains.getIps('ips.example.com')).toEqual(['192.0.2.10']);
    expect(await sdkError(mg.domains.deleteIp('ips.example.com', '192.0.2.11'))).toMatchObject({ status: 404 });
    expect((await call(`${platform.us.url}/v3/domains/ips.example.com/ips/all`, { method: 'DELETE' })).json).toEqual({ message: 'success' });
    expect(await mg.domains.getIps('ips.example.com')).toEqual([]);
  });
});
