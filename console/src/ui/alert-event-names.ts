/**
 * The alert events (Mailgun's `event_type`, also the blocklist events' `event`) as people read
 * them. The API's own name is what a form sends and what the page shows in a tooltip.
 */
const NAMES: Readonly<Record<string, string>> = {
  ip_listed: 'IP listed',
  ip_delisted: 'IP delisted',
  domain_listed: 'Domain listed',
  domain_delisted: 'Domain delisted',
  reputation_warning: 'Reputation warning',
  reputation_recovered: 'Reputation recovered',
  sending_paused: 'Sending paused',
  sending_resumed: 'Sending resumed',
};

/** An event's name in words; an event this console does not know yet, as the API names it. */
export const alertEventName = (event: string): string => NAMES[event] ?? event;
