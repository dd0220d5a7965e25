/**
 * How long API Gateway may reuse a verdict for the same Authorization header (CDK and the local
 * host both use it). A deleted or disabled key keeps working for at most this long; in exchange
 * most requests skip the key lookup.
 */
export const AUTHORIZER_CACHE_SECONDS = 60;
