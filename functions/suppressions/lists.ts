/** The four suppression lists of a domain, named as they appear in the API paths. */
export const SUPPRESSION_LISTS = ['bounces', 'complaints', 'unsubscribes', 'whitelists'] as const;
export type SuppressionList = (typeof SUPPRESSION_LISTS)[number];

/** The lists that stop sending; the allowlist only keeps addresses off the bounce list. */
export type BlockingList = Exclude<SuppressionList, 'whitelists'>;

export interface ListTexts {
  notFound: string;
  addedOne: string;
  addedMany: (count: number) => string;
  removedOne: string;
  removedAll: string;
}

/** Mailgun's reply texts (contract §8 and the OpenAPI examples); clients show them as they are. */
export const LIST_TEXTS: Record<SuppressionList, ListTexts> = {
  bounces: {
    notFound: 'Address not found in bounces table',
    addedOne: 'Address has been added to the bounces table',
    addedMany: (count) => `${count} addresses have been added to the bounces table`,
    removedOne: 'Bounced addresses for this domain have been removed',
    removedAll: 'Bounced addresses for this domain have been removed',
  },
  complaints: {
    notFound: 'No spam complaints found for this address',
    addedOne: 'Address has been added to the complaints table',
    addedMany: (count) => `${count} complaint addresses have been added to the complaints table`,
    removedOne: 'Complaint addresses for this domain have been removed',
    removedAll: 'Complaint addresses for this domain have been removed',
  },
  unsubscribes: {
    notFound: 'Address not found in unsubscribers table',
    addedOne: 'Address has been added to the unsubscribes table',
    addedMany: (count) => `${count} addresses have been added to the unsubscribes table`,
    removedOne: 'Unsubscribe event has been removed',
    removedAll: 'Unsubscribe addresses for this domain have been removed',
  },
  whitelists: {
    notFound: 'Address/Domain not found in allowlist table',
    addedOne: 'Address/Domain has been added to the allowlists table',
    addedMany: (count) => `${count} addresses/domains have been added to the allowlists table`,
    removedOne: 'Allowlist address/domain has been removed',
    removedAll: 'Allowlist addresses/domains for this domain have been removed',
  },
};

/** The unsubscribe tag meaning "every message from this domain". */
export const ALL_TAGS = '*';
