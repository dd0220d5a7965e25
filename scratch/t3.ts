import { startLocal } from '../lib/local/platform';
(async()=>{ const p = await startLocal({port:0, dataDir: process.argv[2] === 'mem' ? null : '/tmp/dd'+Date.now()}); console.log(p.us.url, p.eu.url); await p.close(); })().catch(e=>{console.error('ERR', e.message, e.cause?.name); process.exit(1)});
