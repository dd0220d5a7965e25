import type { DomainItem } from '../domains/domain-store';

/** A domain's tracking settings; absent fields take Mailgun's defaults (all off). */
export interface TrackingSettings {
  open: { active: boolean; placeAtTheTop: boolean };
  /** `htmlonly` rewrites links in the HTML part only. */
  click: { active: boolean | 'htmlonly' };
  unsubscribe: { active: boolean; htmlFooter: string; textFooter: string };
}

const DEFAULT_HTML_FOOTER = '<br>\n<p><a href="%unsubscribe_url%">unsubscribe</a></p>\n';
const DEFAULT_TEXT_FOOTER = 'To unsubscribe click: <%unsubscribe_url%>\n\n';

export function trackingOf(domain: DomainItem): TrackingSettings {
  const stored = domain.tracking;
  return {
    open: { active: stored?.open?.active ?? false, placeAtTheTop: stored?.open?.placeAtTheTop ?? false },
    click: { active: stored?.click?.active ?? false },
    unsubscribe: {
      active: stored?.unsubscribe?.active ?? false,
      htmlFooter: stored?.unsubscribe?.htmlFooter ?? DEFAULT_HTML_FOOTER,
      textFooter: stored?.unsubscribe?.textFooter ?? DEFAULT_TEXT_FOOTER,
    },
  };
}

/** The wire shape of contract §3.2; `active` is always a JSON boolean (mailgun-go decodes it so). */
export function trackingJson(settings: TrackingSettings) {
  return {
    open: { active: settings.open.active, place_at_the_top: settings.open.placeAtTheTop },
    click: { active: settings.click.active !== false },
    unsubscribe: { active: settings.unsubscribe.active, html_footer: settings.unsubscribe.htmlFooter, text_footer: settings.unsubscribe.textFooter },
  };
}
