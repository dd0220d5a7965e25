import type { SandboxRecipientItem } from '../../accounts/sandbox-recipients';

export const sandboxRecipientJson = (r: SandboxRecipientItem) => ({ email: r.email, activated: r.activated });
