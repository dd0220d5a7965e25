/**
 * A realistic marketing newsletter of about 100 KB, built the way email builders emit them: nested
 * layout tables, inline styles on nearly every element, a <style> block with media queries and
 * dark-mode rules, an Outlook VML button, and many links and images. `siteUrl` is where its links
 * and images point (a loopback server in the benchmarks).
 */
export function newsletterHtml(siteUrl = 'https://shop.example.com', targetBytes = 100 * 1024): string {
  const head = `<!DOCTYPE html>
<html lang="en" xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office">
<head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<title>Spring collection</title>
<!--[if mso]><xml><o:OfficeDocumentSettings><o:PixelsPerInch>96</o:PixelsPerInch></o:OfficeDocumentSettings></xml><![endif]-->
<style>
  body { margin: 0; padding: 0; -webkit-text-size-adjust: 100%; }
  table, td { border-collapse: collapse; mso-table-lspace: 0pt; mso-table-rspace: 0pt; }
  img { border: 0; outline: none; text-decoration: none; display: block; }
  a.button:hover { background-color: #0b5cad !important; }
  .hero h1 { font-family: Georgia, serif; letter-spacing: -0.5px; }
  @media only screen and (max-width: 620px) {
    .container { width: 100% !important; }
    .col { display: block !important; width: 100% !important; }
    .hide-mobile { display: none !important; }
    .pad { padding: 12px !important; }
  }
  @media (prefers-color-scheme: dark) {
    .dark-bg { background-color: #111 !important; }
    .dark-text { color: #eee !important; }
  }
</style>
</head>
<body style="margin:0;padding:0;background-color:#f4f4f4;">
<div lang="en" dir="ltr" style="background-color:#f4f4f4;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#f4f4f4">
<tr><td align="center" style="padding:20px 0;">
<table role="presentation" class="container" width="600" cellpadding="0" cellspacing="0" border="0" style="width:600px;max-width:600px;background:#ffffff;">
<tr><td class="hero" style="padding:24px;text-align:center;background-image:url(${siteUrl}/img/hero-bg.jpg);background-size:cover;">
<a href="${siteUrl}/?utm_source=newsletter"><img src="${siteUrl}/img/logo.png" width="160" height="40" alt="Shop logo" style="margin:0 auto;"></a>
<h1 style="font-size:32px;line-height:40px;color:#222;margin:16px 0 8px;">The spring collection is here</h1>
<p style="font-size:16px;line-height:24px;color:#555;margin:0;">New colours, new fabrics, free returns for 60 days.</p>
<!--[if mso]><v:roundrect xmlns:v="urn:schemas-microsoft-com:vml" href="${siteUrl}/spring" style="height:44px;v-text-anchor:middle;width:220px;" arcsize="10%" stroke="f" fillcolor="#1a73e8"><w:anchorlock/><center style="color:#ffffff;font-family:sans-serif;font-size:16px;">Shop the collection</center></v:roundrect><![endif]-->
<!--[if !mso]><!--><a class="button" href="${siteUrl}/spring" style="display:inline-block;background:#1a73e8;color:#ffffff;padding:12px 24px;border-radius:4px;text-decoration:none;font-weight:bold;margin-top:16px;">Shop the collection</a><!--<![endif]-->
</td></tr>
`;
  const product = (i: number) => `<tr><td class="pad" style="padding:16px 24px;border-bottom:1px solid #eee;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr>
<td class="col" width="180" valign="top" style="width:180px;padding-right:16px;"><a href="${siteUrl}/p/${i}?utm_source=newsletter&amp;utm_campaign=spring"><img src="${siteUrl}/img/p${i % 40}.jpg" width="180" height="180" alt="Product ${i}" style="width:180px;height:auto;border-radius:6px;"></a></td>
<td class="col dark-text" valign="top" style="font-family:Helvetica,Arial,sans-serif;font-size:14px;line-height:21px;color:#333;">
<h2 style="font-size:18px;line-height:24px;margin:0 0 6px;color:#111;">Linen shirt no. ${i}</h2>
<p style="margin:0 0 10px;">Breathable linen in five colours, cut for a relaxed fit. Machine washable, ethically made, and ready for warmer days.</p>
<p style="margin:0;"><span style="font-weight:bold;color:#1a73e8;">€${(29 + (i % 7) * 5).toFixed(2)}</span> &nbsp;<s style="color:#999;">€${(49 + (i % 7) * 5).toFixed(2)}</s></p>
<a href="${siteUrl}/p/${i}/reviews" style="color:#1a73e8;font-size:12px;">Read reviews</a> · <a href="${siteUrl}/p/${i}/sizes" style="color:#1a73e8;font-size:12px;">Size guide</a>
</td></tr></table>
</td></tr>
`;
  const foot = `<tr><td class="dark-bg" style="padding:24px;background:#222;color:#aaa;font-family:Arial,sans-serif;font-size:12px;line-height:18px;text-align:center;">
<p style="margin:0 0 8px;"><a href="${siteUrl}/account" style="color:#fff;">Your account</a> · <a href="${siteUrl}/help" style="color:#fff;">Help</a> · <a href="mailto:help@shop.example.com" style="color:#fff;">Contact</a></p>
<p style="margin:0;">You are receiving this because you subscribed at shop.example.com. <a href="%unsubscribe_url%" style="color:#fff;">Unsubscribe</a></p>
</td></tr></table>
</td></tr></table>
</div>
</body>
</html>
`;
  let body = '';
  for (let i = 0; (head + body + foot).length < targetBytes; i++) body += product(i);
  return head + body + foot;
}
