import { escapeHtml } from '../../platform/html-escape';
import { publicPage } from '../../platform/http/public-page';
import { RawReply } from '../../platform/http/reply';
import type { resultJson } from './present';

type SharedResult = ReturnType<typeof resultJson>;

const DESTINATION_LABEL: Record<string, string> = { inbox: 'Inbox', spam: 'Spam' };

function seedRow(seed: SharedResult['seed_results'][number]): string {
  const where = seed.state === 'delivered' ? (DESTINATION_LABEL[seed.destination] ?? seed.destination) : seed.state === 'missing' ? 'Missing' : 'Pending';
  const cells = [seed.provider, seed.email, where, seed.tags.join(', '), seed.extensions.category, seed.spf, seed.dkim, seed.dmarc].map((c) => `<td>${escapeHtml(c)}</td>`).join('');
  return `<tr data-seed="${escapeHtml(seed.email)}" data-state="${escapeHtml(seed.state)}" data-destination="${escapeHtml(seed.destination)}">${cells}</tr>`;
}

function statsRow(stats: SharedResult['delivery_stats'][string]): string {
  return `<tr data-provider="${escapeHtml(stats.provider)}">${[stats.provider, stats.total, stats.inbox, stats.spam, stats.missing, stats.pending].map((c) => `<td>${escapeHtml(String(c))}</td>`).join('')}</tr>`;
}

/**
 * The public page of a shared placement result: where each seed's copy landed and what the
 * receiver said about its authentication. Server-rendered with no script, and a policy that lets
 * it load nothing at all; the body of the message is never on it.
 */
export function placementSharePage(result: SharedResult): RawReply {
  const score = result.spamassassin ? `<p class="score">Content score: ${escapeHtml(String(result.spamassassin.score))} (spam at ${escapeHtml(String(result.spamassassin.required))})</p>` : '<p class="note">No content score: no spam scorer is configured.</p>';
  const style = `body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
header{background:#fff;border-bottom:1px solid #dde1e6;padding:16px 24px}
h1{font-size:20px;margin:0}h2{font-size:16px}
main{padding:8px 24px}
table{border-collapse:collapse;background:#fff;margin-bottom:24px}
th,td{border:1px solid #dde1e6;padding:4px 10px;text-align:left;font-size:14px}
.note{color:#5b6472;font-size:13px}`;
  const body = `<header><h1>${escapeHtml(result.subject)}</h1><p class="note">From ${escapeHtml(result.sender)}, received ${escapeHtml(new Date(result.created_at).toUTCString())}; status: <span class="status">${escapeHtml(result.status)}</span>.</p></header>
<main>
<h2>By provider</h2>
<table class="stats"><thead><tr><th>Provider</th><th>Total</th><th>Inbox</th><th>Spam</th><th>Missing</th><th>Pending</th></tr></thead><tbody>
${Object.values(result.delivery_stats).map(statsRow).join('\n')}
</tbody></table>
<h2>Seeds</h2>
<table class="seeds"><thead><tr><th>Provider</th><th>Seed</th><th>Placement</th><th>Folder</th><th>Gmail tab</th><th>SPF</th><th>DKIM</th><th>DMARC</th></tr></thead><tbody>
${result.seed_results.map(seedRow).join('\n')}
</tbody></table>
${score}
</main>`;
  return publicPage({ title: `${result.subject}: inbox placement`, style, body });
}
