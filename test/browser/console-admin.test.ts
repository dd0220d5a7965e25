import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { LocalPlatform } from '../../lib/local/platform';
import { horizontalOverflow, launchBrowser, newContext, openPage, expectAccessible as expectPageAccessible, signIn } from '../support/browser';
import { ADMIN_KEY, apiKeys, call, sdk, startTestPlatform } from '../support/platform';

// The console's administration pages (issue 30) as a user meets them: subaccounts and the header's
// account switcher (every page then acts on behalf of the subaccount), IPs and pools (the
// contract's rules refused with their messages beside the field they are about), and the account
// page. One host and one browser for the file.
jest.setTimeout(180_000);

let platform: LocalPlatform;
let browser: Browser;
let context: BrowserContext;
let page: Page;

const ADMIN_PAGES = ['Subaccounts', 'IPs', 'Account settings'] as const;

beforeAll(async () => {
  [platform, browser] = await Promise.all([startTestPlatform(), launchBrowser()]);
  context = await newContext(browser);
  page = await context.newPage();
  await signIn(page, platform.us.url, ADMIN_KEY);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await platform?.close();
});

const open = (name: string) => openPage(page, name);

const expectAccessible = (where: string) => expectPageAccessible(page, where);

/** The error shown under a control: what its aria-describedby points at. */
async function describedError(control: ReturnType<Page['getByLabel']>): Promise<string> {
  const id = await control.getAttribute('aria-describedby');
  expect(id).toBeTruthy();
  return (await page.locator(`[id="${id}"]`).textContent()) ?? '';
}

describe('the console\'s administration pages', () => {
  it('creates a subaccount, switches to it and sees only its domains on every page, then back', async () => {
    const parent = sdk(platform.us.url);
    await parent.domains.create({ name: 'parent.example.com' });

    await open('Subaccounts');
    await page.getByLabel('Subaccount name').fill('Agency <b>One</b>');
    await page.getByRole('button', { name: 'Create subaccount' }).click();
    // The name is text, not markup.
    await page.getByRole('cell', { name: 'Agency <b>One</b>', exact: true }).waitFor();
    const sub = (await parent.subaccounts.list()).subaccounts.find((s) => s.name === 'Agency <b>One</b>')!;
    expect(sub.status).toBe('open');
    const asSub = sdk(platform.us.url);
    asSub.setSubaccount(sub.id);
    await asSub.domains.create({ name: 'sub.example.com' });
    await expectAccessible('subaccounts');

    await page.getByRole('combobox', { name: 'Account' }).selectOption({ label: 'Subaccount: Agency <b>One</b>' });
    await open('Domains');
    await page.getByRole('link', { name: 'sub.example.com' }).waitFor();
    expect(await page.getByRole('link', { name: 'parent.example.com' }).count()).toBe(0);
    // The account acted on stays in view.
    expect(await page.getByRole('combobox', { name: 'Account' }).locator('option:checked').textContent()).toBe('Subaccount: Agency <b>One</b>');
    // Other pages act as the subaccount too: its Logs' domain filter lists its domains only.
    await open('Logs');
    const filter = page.getByLabel('Domain', { exact: true });
    await filter.locator('option', { hasText: 'sub.example.com' }).waitFor({ state: 'attached' });
    expect(await filter.locator('option', { hasText: 'parent.example.com' }).count()).toBe(0);

    await page.getByRole('combobox', { name: 'Account' }).selectOption({ label: 'Primary account' });
    await open('Domains');
    await page.getByRole('link', { name: 'parent.example.com' }).waitFor();
    expect(await page.getByRole('link', { name: 'sub.example.com' }).count()).toBe(0);

    // Disable and enable, as the API sees them.
    await open('Subaccounts');
    await page.getByRole('button', { name: 'Disable Agency <b>One</b>' }).click();
    // Asked first: disabling stops its sending.
    await page.getByRole('dialog', { name: 'Disable Agency <b>One</b>' }).getByRole('button', { name: 'Disable', exact: true }).click();
    await page.getByRole('button', { name: 'Enable Agency <b>One</b>' }).waitFor();
    expect((await parent.subaccounts.get(sub.id)).subaccount.status).toBe('disabled');
    await page.getByRole('button', { name: 'Enable Agency <b>One</b>' }).click();
    await page.getByRole('button', { name: 'Disable Agency <b>One</b>' }).waitFor();
    expect((await parent.subaccounts.get(sub.id)).subaccount.status).toBe('open');
  });

  it("shows a subaccount's features and monthly limit as the API has them, and changes both", async () => {
    const parent = sdk(platform.us.url);
    const sub = (await parent.subaccounts.list()).subaccounts.find((s) => s.name === 'Agency <b>One</b>')!;
    await open('Subaccounts');
    await page.getByRole('button', { name: 'Details of Agency <b>One</b>' }).click();
    const features = page.getByRole('form', { name: 'Features of Agency <b>One</b>' });
    const shown = async () => {
      const out: Record<string, boolean> = {};
      for (const [name, label] of [['sending', 'Sending'], ['email_preview', 'Email previews'], ['inbox_placement', 'Inbox placement'], ['validations', 'Address validations'], ['validations_bulk', 'Bulk address validations']] as const) {
        out[name] = await features.getByLabel(label, { exact: true }).isChecked();
      }
      return out;
    };
    const fromApi = async () => Object.fromEntries(Object.entries((await parent.subaccounts.get(sub.id)).subaccount.features as Record<string, { enabled: boolean }>).map(([name, f]) => [name, f.enabled]));
    await features.getByLabel('Sending', { exact: true }).waitFor();
    expect(await shown()).toEqual(await fromApi());

    // Saving nothing changed is the API's refusal; a change is saved and read back.
    await features.getByRole('button', { name: 'Save features' }).click();
    await features.getByRole('alert').filter({ hasText: 'No valid updates provided' }).waitFor();
    await features.getByLabel('Address validations', { exact: true }).check();
    await features.getByLabel('Email previews', { exact: true }).uncheck();
    await features.getByRole('button', { name: 'Save features' }).click();
    await page.getByRole('status').filter({ hasText: 'Features of Agency <b>One</b> saved.' }).waitFor();
    expect(await fromApi()).toMatchObject({ validations: true, email_preview: false, sending: true });
    expect(await shown()).toEqual(await fromApi());

    // Its monthly limit, set by the parent: the refusal under the field, then the API's figures.
    const limits = page.getByRole('region', { name: 'Monthly sending limit of Agency <b>One</b>' });
    await limits.getByText('No monthly limit is set.').waitFor();
    await limits.getByLabel('Monthly limit (messages)').fill('10');
    await limits.getByRole('button', { name: 'Set limit' }).click();
    await limits.getByRole('alert').filter({ hasText: 'minumum is 1000' }).waitFor();
    await limits.getByLabel('Monthly limit (messages)').fill('2000');
    await limits.getByRole('button', { name: 'Set limit' }).click();
    const figures = limits.getByText(/of 2,000 messages this month/);
    await figures.waitFor();
    const api = (await call(`${platform.us.url}/v5/accounts/subaccounts/${sub.id}/limit/custom/monthly`)).json as { limit: number; current: number };
    expect(await figures.textContent()).toContain(`${api.current.toLocaleString('en-US')} of ${api.limit.toLocaleString('en-US')} messages this month`);
    // The parent's own limit is another one: still unset.
    expect((await call(`${platform.us.url}/v5/accounts/limit/custom/monthly`)).status).toBe(404);
    await expectAccessible('a subaccount\'s details');
    await limits.getByRole('button', { name: 'Remove limit' }).click();
    await limits.getByText('No monthly limit is set.').waitFor();
    expect((await call(`${platform.us.url}/v5/accounts/subaccounts/${sub.id}/limit/custom/monthly`)).status).toBe(404);
  });

  it('creates, edits and deletes an IP pool, each refusal shown where it applies, and starts a warm-up', async () => {
    await open('IPs');
    await page.getByRole('cell', { name: '192.0.2.10', exact: true }).waitFor();
    const poolList = page.getByRole('region', { name: 'IP pools', exact: true });
    const create = page.getByRole('form', { name: 'Create IP pool' });
    await create.getByLabel('Pool name').fill('Transactional');
    await create.getByLabel('Description').fill('Receipts');
    await create.getByLabel('192.0.2.10').check();
    await create.getByRole('button', { name: 'Create pool' }).click();
    await poolList.getByRole('cell', { name: 'Transactional', exact: true }).waitFor();
    const pools = (await call(`${platform.us.url}/v3/ip_pools`)).json.ip_pools as Array<{ name: string; ips: string[] }>;
    expect(pools).toEqual([expect.objectContaining({ name: 'Transactional', ips: ['192.0.2.10'] })]);

    // The same name again: the platform's message under the name field.
    await create.getByLabel('Pool name').fill('Transactional');
    await create.getByLabel('Description').fill('Again');
    await create.getByRole('button', { name: 'Create pool' }).click();
    await create.getByRole('alert').filter({ hasText: 'An IP pool named Transactional already exists' }).waitFor();
    expect(await describedError(create.getByLabel('Pool name'))).toBe('An IP pool named Transactional already exists');
    expect(await create.getByLabel('Pool name').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible('IPs with a refused pool');

    // Editing without a change is refused (the contract's rule 7), under the form.
    await page.getByRole('button', { name: 'Edit pool Transactional' }).click();
    const edit = page.getByRole('form', { name: 'Edit pool Transactional' });
    await edit.getByRole('button', { name: 'Save pool' }).click();
    await edit.getByRole('alert').filter({ hasText: 'The edit changes nothing' }).waitFor();
    await edit.getByLabel('192.0.2.11').check();
    await edit.getByRole('button', { name: 'Save pool' }).click();
    await page.getByRole('status').filter({ hasText: 'Pool Transactional saved.' }).waitFor();
    await poolList.getByRole('cell', { name: '192.0.2.10, 192.0.2.11' }).waitFor();

    // A pool with IPs needs a replacement to be deleted (rule 5): the message at the replacement choice.
    await page.getByRole('button', { name: 'Delete pool Transactional' }).click();
    const remove = page.getByRole('form', { name: 'Delete pool Transactional' });
    await remove.getByLabel('None').check();
    await remove.getByRole('button', { name: 'Delete pool' }).click();
    await remove.getByRole('group', { name: 'Replacement' }).getByRole('alert').filter({ hasText: 'can be deleted only with a replacement' }).waitFor();
    await remove.getByLabel('An IP (or shared)').check();
    await remove.getByLabel('Replacement IP').selectOption('shared');
    await remove.getByRole('button', { name: 'Delete pool' }).click();
    await page.getByRole('status').filter({ hasText: 'is being deleted' }).waitFor();
    expect((await call(`${platform.us.url}/v3/ip_pools`)).json.ip_pools).toEqual([]);

    // Warm-up: its stage and progress.
    await page.getByLabel('IP to warm up').selectOption('192.0.2.11');
    await page.getByRole('button', { name: 'Start warm-up' }).click();
    const row = page.getByRole('row').filter({ hasText: '192.0.2.11' }).filter({ has: page.getByRole('progressbar') });
    await row.waitFor();
    const details = (await call(`${platform.us.url}/v3/ip_warmups/192.0.2.11`)).json.details as { stage_number: number; total_stages: number };
    expect(await row.getByRole('cell').nth(1).textContent()).toBe(`${details.stage_number} of ${details.total_stages}`);

    // Dynamic pools: an address the account does not have, refused under the band that names it.
    const bands = page.getByRole('form', { name: 'Set dynamic IP pools' });
    await bands.getByLabel('Good reputation IPs (separated by commas)').fill('203.0.113.9');
    await bands.getByRole('button', { name: 'Save bands' }).click();
    await bands.getByRole('alert').filter({ hasText: 'IP 203.0.113.9 is not a dedicated IP of this account' }).waitFor();
    expect(await describedError(bands.getByLabel('Good reputation IPs (separated by commas)'))).toBe('IP 203.0.113.9 is not a dedicated IP of this account');
    await expectAccessible('IPs');
  });

  it('delegates a pool and an IP to a subaccount, shows who has what as the API does, refuses a pooled IP under its field, and revokes the pool', async () => {
    const sub = (await sdk(platform.us.url).subaccounts.list()).subaccounts.find((s) => s.name === 'Agency <b>One</b>')!;
    await open('IPs');
    const create = page.getByRole('form', { name: 'Create IP pool' });
    await create.getByLabel('Pool name').fill('Shared out');
    await create.getByLabel('Description').fill('For agencies');
    await create.getByLabel('192.0.2.10').check();
    await create.getByRole('button', { name: 'Create pool' }).click();
    await page.getByRole('region', { name: 'IP pools', exact: true }).getByRole('cell', { name: 'Shared out', exact: true }).waitFor();
    const created = ((await call(`${platform.us.url}/v3/ip_pools`)).json.ip_pools as Array<{ pool_id: string; name: string }>).find((p) => p.name === 'Shared out')!;
    const section = page.getByRole('region', { name: 'Delegated to subaccounts' });
    const row = section.getByRole('row').filter({ hasText: 'Agency <b>One</b>' });
    await row.getByRole('cell', { name: 'none' }).first().waitFor();

    const pool = section.getByRole('form', { name: 'Delegate a pool' });
    await pool.getByLabel('Subaccount').selectOption({ label: 'Agency <b>One</b>' });
    await pool.getByLabel('Pool').selectOption({ label: 'Shared out' });
    await pool.getByRole('button', { name: 'Delegate pool' }).click();
    await row.getByRole('button', { name: 'Revoke pool Shared out from Agency <b>One</b>' }).waitFor();
    expect((await call(`${platform.us.url}/v5/accounts/subaccounts/ip_pools/all`)).json).toEqual({ items: [{ pool_id: created.pool_id, subaccount_id: sub.id }], total_count: 1 });

    // An IP in a pool is refused, the platform's words under the IP field; a free one is delegated.
    const ip = section.getByRole('form', { name: 'Delegate an IP' });
    await ip.getByLabel('Subaccount').selectOption({ label: 'Agency <b>One</b>' });
    await ip.getByLabel('IP', { exact: true }).selectOption('192.0.2.10');
    await ip.getByRole('button', { name: 'Delegate IP' }).click();
    await ip.getByRole('alert').filter({ hasText: 'is in the IP pool Shared out' }).waitFor();
    expect(await describedError(ip.getByLabel('IP', { exact: true }))).toBe('IP 192.0.2.10 is in the IP pool Shared out: an IP in a pool cannot be delegated');
    await expectAccessible('IPs with a refused delegation');
    await ip.getByLabel('IP', { exact: true }).selectOption('192.0.2.11');
    await ip.getByRole('button', { name: 'Delegate IP' }).click();
    await row.getByRole('cell', { name: '192.0.2.11', exact: true }).waitFor();
    const subIps = (await call(`${platform.us.url}/v3/ips`, { headers: { 'x-mailgun-on-behalf-of': sub.id } })).json.items;
    expect(subIps).toEqual(['192.0.2.11']);

    await row.getByRole('button', { name: 'Revoke pool Shared out from Agency <b>One</b>' }).click();
    await section.getByRole('status').filter({ hasText: 'Pool Shared out revoked from Agency <b>One</b>.' }).waitFor();
    // The notice comes as the listing reloads: the row loses the pool once it has.
    await row.getByRole('button', { name: 'Revoke pool Shared out from Agency <b>One</b>' }).waitFor({ state: 'detached' });
    expect(await row.getByRole('button', { name: /^Revoke pool / }).count()).toBe(0);
    expect((await call(`${platform.us.url}/v5/accounts/subaccounts/ip_pools/all`)).json).toEqual({ items: [], total_count: 0 });
  });

  it('shows the monthly limit against the count, with its refusal under the field, and the sandbox recipients\' state', async () => {
    await open('Account settings');
    await page.getByText('No monthly limit is set.').waitFor();
    await page.getByLabel('Monthly limit (messages)').fill('10');
    await page.getByRole('button', { name: 'Set limit' }).click();
    await page.getByRole('alert').filter({ hasText: 'minumum is 1000' }).waitFor();
    expect(await describedError(page.getByLabel('Monthly limit (messages)'))).toContain('The limit parameter minumum is 1000');
    await page.getByLabel('Monthly limit (messages)').fill('5000');
    await page.getByRole('button', { name: 'Set limit' }).click();
    await page.getByText(/of 5,000 messages this month/).waitFor();
    // The page's figures are the API's.
    const api = (await call(`${platform.us.url}/v5/accounts/limit/custom/monthly`)).json as { limit: number; current: number };
    expect(await page.getByText(/of 5,000 messages this month/).textContent()).toContain(`${api.current.toLocaleString('en-US')} of ${api.limit.toLocaleString('en-US')} messages this month`);

    // The settings form starts from what GET /v5/accounts reads back, and a save is read back too.
    await call(`${platform.us.url}/v5/accounts`, { method: 'PUT', contentType: 'application/x-www-form-urlencoded', body: 'name=Acme+Mail&inactive_session_timeout=1800' });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Account settings' }).waitFor();
    const settings = page.getByRole('form', { name: 'Account settings' });
    const read = async () => (await call(`${platform.us.url}/v5/accounts`)).json.account as Record<string, unknown>;
    await settings.getByLabel('Account name').waitFor();
    expect(await settings.getByLabel('Account name').inputValue()).toBe('Acme Mail');
    expect(await settings.getByLabel('Inactive session timeout (seconds)').inputValue()).toBe('1800');
    expect(await settings.getByLabel('Absolute session timeout (seconds)').inputValue()).toBe('');
    await settings.getByLabel('Absolute session timeout (seconds)').fill('7200');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Account info has been updated' }).waitFor();
    expect(await read()).toMatchObject({ name: 'Acme Mail', inactive_session_timeout: 1800, absolute_session_timeout: 7200 });
    await page.getByText('Webhooks carry personal data').waitFor();
    await page.getByRole('button', { name: 'Redact personal data in webhooks' }).click();
    await page.getByText('Webhooks redact personal data').waitFor();
    expect((await read()).features).toEqual({ webhooks_redact_pii: { enabled: true } });
    await page.getByRole('button', { name: 'Stop redacting personal data' }).click();
    await page.getByText('Webhooks carry personal data').waitFor();
    expect((await read()).features).toEqual({ webhooks_redact_pii: { enabled: false } });

    await page.getByLabel('Recipient address').fill('tester@example.net');
    await page.getByRole('button', { name: 'Add recipient' }).click();
    await page.getByRole('row').filter({ hasText: 'tester@example.net' }).getByText('awaiting confirmation').waitFor();
    await expectAccessible('account settings');
  });

  it("says why a key is refused at sign-in when the account's IP allowlist leaves this address out", async () => {
    const sub = (await sdk(platform.us.url).subaccounts.create('Locked out')).subaccount;
    const asSub = { 'X-Mailgun-On-Behalf-Of': sub.id };
    const key = (await call(`${platform.us.url}/v1/keys`, { method: 'POST', headers: asSub, contentType: 'application/x-www-form-urlencoded', body: 'role=admin&kind=user&description=sub+admin' })).json as { key: { secret: string } };
    expect((await call(`${platform.us.url}/v2/ip_whitelist`, { method: 'POST', headers: asSub, contentType: 'application/x-www-form-urlencoded', body: 'address=10.0.0.0%2F8' })).status).toBe(200);
    const outsider = await context.newPage();
    await outsider.goto(`${platform.us.url}/`);
    await outsider.getByLabel('API key').fill(key.key.secret);
    await outsider.getByRole('button', { name: 'Sign in' }).click();
    await outsider.getByText("That API key was not accepted: 127.0.0.1 is not on the account's IP allowlist.").waitFor();
    await outsider.close();
  });

  it('shows a read-only key the administration pages without their buttons', async () => {
    const basic = await apiKeys(sdk(platform.us.url)).create({ role: 'basic', kind: 'user', description: 'read only' });
    const reader = await context.newPage();
    await reader.goto(`${platform.us.url}/`);
    await reader.getByLabel('API key').fill(basic.secret);
    await reader.getByRole('button', { name: 'Sign in' }).click();
    await reader.getByRole('link', { name: 'Subaccounts', exact: true }).click();
    await reader.getByRole('cell', { name: 'Agency <b>One</b>', exact: true }).waitFor();
    expect(await reader.getByRole('button', { name: 'Create subaccount' }).count()).toBe(0);
    expect(await reader.getByRole('button', { name: /^Disable / }).count()).toBe(0);
    // A subaccount's details are there to read: its features shown, not changeable.
    await reader.getByRole('button', { name: 'Details of Agency <b>One</b>' }).click();
    await reader.getByLabel('Address validations', { exact: true }).waitFor();
    expect(await reader.getByLabel('Address validations', { exact: true }).isDisabled()).toBe(true);
    expect(await reader.getByRole('button', { name: 'Save features' }).count()).toBe(0);
    await reader.getByRole('link', { name: 'IPs', exact: true }).click();
    await reader.getByRole('heading', { name: 'IP pools', exact: true }).waitFor();
    expect(await reader.getByRole('button', { name: 'Create pool' }).count()).toBe(0);
    await reader.getByRole('region', { name: 'Delegated to subaccounts' }).getByRole('cell', { name: '192.0.2.11', exact: true }).waitFor();
    expect(await reader.getByRole('button', { name: /^Delegate |^Revoke / }).count()).toBe(0);
    await reader.getByRole('link', { name: 'Account settings', exact: true }).click();
    await reader.getByRole('heading', { name: 'Monthly sending limit' }).waitFor();
    expect(await reader.getByRole('button', { name: 'Set limit' }).count()).toBe(0);
    // The settings are shown as they are, without a way to change them.
    await reader.getByLabel('Account name').waitFor();
    expect(await reader.getByLabel('Account name').inputValue()).toBe('Acme Mail');
    expect(await reader.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
    await reader.close();
  });

  it('passes axe on each administration page at 1366x768 and 390x844, reached through the phone menu', async () => {
    for (const viewport of [{ width: 1366, height: 768 }, { width: 390, height: 844 }]) {
      await page.setViewportSize(viewport);
      for (const name of ADMIN_PAGES) {
        if (viewport.width < 700) await page.getByRole('button', { name: 'Menu' }).click();
        await open(name);
        await page.waitForLoadState('networkidle');
        expect({ name, viewport, overflow: await horizontalOverflow(page) }).toEqual({ name, viewport, overflow: 0 });
        await expectAccessible(`${name} at ${viewport.width}x${viewport.height}`);
      }
    }
    await page.setViewportSize({ width: 1366, height: 768 });
  });
});
