import type { KeyKind, Role } from './access';

/** Who is calling, as established by the authorizer from the API key. */
export interface Principal {
  accountId: string;
  keyId: string;
  role: Role;
  kind: KeyKind;
  /** Set for domain-kind keys: the only domain they may act on. */
  domain?: string;
}

/**
 * The authorizer's verdict as API Gateway passes it to the handlers (simple-response context:
 * flat strings and numbers). A refused key still reaches the pipeline as `denied`, so the reply can
 * be Mailgun's 401 with a JSON message rather than API Gateway's bare 403; with `retryAt` (epoch
 * seconds: a cached verdict stays right) it is a 429 for too many failures, Retry-After counted
 * down to it.
 */
export type AuthorizerContext = (Principal & { denied?: undefined }) | { denied: string; retryAt?: number };
