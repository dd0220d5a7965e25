import type { RouteSpec } from '../../platform/http/route';

const area = 'optimize/postmaster';
const gpt = '/v1/reputationanalytics/gpt';

/**
 * Google Postmaster data (optimize contract 1.8, 2.6), filled from Postmaster Tools API v2 by the
 * daily fetch. Errors as Mailgun's GPT service gives them: 400 `{"Reason"}`, 404 `{"Description"}`.
 * `domains/{domain}/compliance` is this platform's extension (v2's compliance status).
 */
export const postmasterRoutes = [
  { method: 'GET', path: `${gpt}/domains`, area, operation: 'gptDomains', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/domains/{domain}`, area, operation: 'gptDomain', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/domains/{domain}/addresses`, area, operation: 'gptDomainAddresses', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/domains/{domain}/compliance`, area, operation: 'gptDomainCompliance', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/domains_list`, area, operation: 'gptDomainsList', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/domainsfbl`, area, operation: 'gptFeedbackLoops', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/domainsfbl/{domain}`, area, operation: 'gptDomainFeedbackLoops', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/addresses`, area, operation: 'gptAddresses', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/addresses/{address}`, area, operation: 'gptAddress', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/addresses_list`, area, operation: 'gptAddressesList', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/summary`, area, operation: 'gptSummary', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/summary/domains`, area, operation: 'gptSummaryDomains', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/summary/errors`, area, operation: 'gptSummaryErrors', access: 'read', errorField: 'Reason' },
  { method: 'GET', path: `${gpt}/summary/addresses`, area, operation: 'gptSummaryAddresses', access: 'read', errorField: 'Reason' },
] as const satisfies readonly RouteSpec[];
