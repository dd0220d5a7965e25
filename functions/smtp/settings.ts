import { z } from 'zod/v3';

/**
 * The SMTP service's own settings, beside the platform's (functions/platform/env.ts), which the
 * container gets too. CDK (lib/constructs/smtp.ts) sets them on the Fargate task.
 */
export const smtpSettingsSchema = z.object({
  /** Submission with STARTTLS; the load balancer's 587 forwards here. */
  SMTP_PORT: z.coerce.number().int().min(0).max(65535).default(2587),
  /** Where the load balancer's TLS listener (465, ACM certificate) forwards, decrypted. */
  SMTP_TLS_TERMINATED_PORT: z.coerce.number().int().min(0).max(65535).default(2465),
  /**
   * The Secrets Manager secret holding STARTTLS's certificate: JSON with `certificate` (the PEM
   * chain) and `privateKey` (PEM) for SMTP_HOSTNAME.
   */
  SMTP_TLS_SECRET_ID: z.string().min(1),
  /** The name the service greets with: the host clients connect to. */
  SMTP_HOSTNAME: z.string().min(1).default('localhost'),
});

export type SmtpSettings = z.infer<typeof smtpSettingsSchema>;

/** The secret's content, as the operator stores it. */
export const smtpTlsSecretSchema = z.object({ certificate: z.string().includes('BEGIN CERTIFICATE'), privateKey: z.string().includes('PRIVATE KEY') });
