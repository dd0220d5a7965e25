import type { UserItem } from '../../accounts/user-store';

/** The User shape of contract 12.4, with what this platform does not have (passwords, 2FA, SSO) empty. */
export function userJson(user: UserItem) {
  const at = user.email.lastIndexOf('@');
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    email_details: {
      address: user.email,
      is_valid: at > 0,
      parts: { local_part: at > 0 ? user.email.slice(0, at) : user.email, domain: at > 0 ? user.email.slice(at + 1) : '', display_name: user.name },
    },
    role: user.role,
    account_id: user.accountId,
    activated: true,
    is_disabled: false,
    is_master: user.isMaster,
    opened_ip: '',
    metadata: {},
    tfa_enabled: false,
    tfa_active: false,
    tfa_created_at: null,
    password_updated_at: null,
    preferences: { time_zone: 'UTC', time_format: '', programming_language: '' },
    auth: { method: 'api_key', prior_method: '', prior_details: {} },
    github_user_id: null,
    salesforce_user_id: null,
    migration_status: '',
  };
}
