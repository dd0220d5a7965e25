import { call } from '../api';
import { credentials } from '../session';
import { listDomains } from '../ui/domain-picker';

export interface ApiKey {
  id: string;
  description: string;
  kind: string;
  role: string;
  created_at: string;
  expires_at?: string;
  domain_name: string | null;
  requestor: string | null;
}

export function listKeys(signal?: AbortSignal): Promise<{ items: ApiKey[] }> {
  return call<{ items: ApiKey[] }>(credentials(), 'GET', '/v1/keys', { signal });
}

/** What the API keys page asks for as it opens. */
export function loadKeys(): void {
  void listKeys();
  void listDomains();
}
