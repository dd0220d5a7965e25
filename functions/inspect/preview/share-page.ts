import { publicPage } from '../../platform/http/public-page';
import { RawReply } from '../../platform/http/reply';
import type { clientResultJson } from './client-result';
import { escapeHtml } from '../../platform/html-escape';

type ClientResult = ReturnType<typeof clientResultJson>;


function figure(result: ClientResult): string {
  const image =
    result.status === 'Complete'
      ? `<a href="${escapeHtml(result.screenshots['default']!)}"><img src="${escapeHtml(result.screenshots['default']!)}" alt="${escapeHtml(result.display_name)} screenshot" loading="lazy"></a>`
      : `<p class="state">${result.status === 'Bounced' ? `Could not be rendered: ${escapeHtml(result.status_details.bounce_message)}` : 'Still rendering: reload in a moment.'}</p>`;
  const applied = result.applied.length ? `<details><summary>What ${escapeHtml(result.client)} changed (${result.applied.length})</summary><ul>${result.applied.map((a) => `<li>${escapeHtml(a)}</li>`).join('')}</ul></details>` : '<p class="note">No changes for this client.</p>';
  return `<figure data-client="${escapeHtml(result.id)}" data-status="${escapeHtml(result.status)}"><figcaption><strong>${escapeHtml(result.display_name)}</strong> <span class="fidelity fidelity-${result.fidelity}" title="How close a browser rendering is to this client">${result.fidelity}</span></figcaption>${image}${applied}</figure>`;
}

/**
 * The public page of a share (contract §5.11's `url`): the test's subject and every client's
 * screenshot with its name, fidelity and the transforms applied. Server-rendered with no script,
 * and a policy that lets it load nothing but its own images and styles.
 */
export function sharePage(subject: string, date: number, results: ClientResult[]): RawReply {
  const style = `body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
header{background:#fff;border-bottom:1px solid #dde1e6;padding:16px 24px}
h1{font-size:20px;margin:0}
main{display:grid;grid-template-columns:repeat(auto-fill,minmax(280px,1fr));gap:20px;padding:24px}
figure{margin:0;background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:12px}
figure img{width:100%;max-height:520px;object-fit:cover;object-position:top;border:1px solid #eef0f3}
.fidelity{font-size:12px;border-radius:10px;padding:1px 8px;background:#e8f0fe}
.fidelity-approximate{background:#fff4d6}.fidelity-experimental{background:#fde2e1}
.note,.state{color:#5b6472;font-size:13px}
details{font-size:13px;margin-top:8px}`;
  const body = `<header><h1>${escapeHtml(subject)}</h1><p class="note">Previews rendered ${escapeHtml(new Date(date * 1000).toUTCString())}, in a browser after each client's rules; the fidelity label says how close that is to the real client.</p></header>
<main>
${results.map(figure).join('\n')}
</main>`;
  return publicPage({ title: `${subject}: email previews`, style, body }, { images: true });
}
