import Mailgun from 'mailgun.js';
import { startLocal } from '../lib/local/platform';
(async () => {
  const p = await startLocal({ port: 0, dataDir: null, bootstrapApiKey: 'test-admin-key' });
  const mg = new Mailgun(FormData).client({ username: 'api', key: 'test-admin-key', url: p.us.url });
  try {
    console.log('list', JSON.stringify(await mg.domains.list()).slice(0, 200));
    const created = await mg.domains.create({ name: 'Example.com', dkim_key_size: '1024', smtp_password: 'secret123', wildcard: true } as never);
    console.log('create', JSON.stringify(created, null, 1).slice(0, 2500));
    console.log('get', JSON.stringify(await mg.domains.get('example.com', { extended: true, with_dns: false } as never)));
    console.log('update', JSON.stringify(await mg.domains.update('example.com', { spam_action: 'tag', require_tls: true } as never)).slice(0, 300));
    console.log('verify', JSON.stringify(await mg.domains.verify('example.com')).slice(0, 300));
    const key = await mg.apiKeys.create({ role: 'sending', kind: 'domain', domain_name: 'example.com', description: 'd' } as never);
    console.log('key', JSON.stringify(key));
    console.log('keys', JSON.stringify(await mg.apiKeys.list({ kind: 'domain' } as never)));
    console.log('delkey', JSON.stringify(await mg.apiKeys.destroy((key as { id: string }).id)));
    console.log('destroy', JSON.stringify(await mg.domains.destroy('example.com')));
    try { await mg.domains.get('example.com'); } catch (e) { console.log('get after delete', (e as Error).message, JSON.stringify(e)); }
  } catch (e) { console.error('ERR', e); }
  await p.close();
})();
