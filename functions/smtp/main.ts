import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { signIn } from '../credentials/credentials';
import { MAX_MIME_MESSAGE_BYTES } from '../messages/mime-submission';
import { MAX_RECIPIENTS } from '../messages/recipients';
import { secretsClient } from '../platform/aws-clients';
import { logger } from '../platform/logger';
import { startSmtpService } from './server';
import { smtpSettingsSchema, smtpTlsSecretSchema } from './settings';
import { submitMessage } from './submit';

/**
 * The SMTP service's container entry (AWS: an ECS Fargate service behind a Network Load Balancer,
 * lib/constructs/smtp.ts). STARTTLS on SMTP_PORT with the certificate from Secrets Manager; the
 * load balancer ends TLS for 465 with an ACM certificate and forwards to SMTP_TLS_TERMINATED_PORT.
 * SIGTERM (a deployment, a scale-in) lets sessions in flight finish before the task stops.
 */
async function main(): Promise<void> {
  const settings = smtpSettingsSchema.parse(process.env);
  const secret = await secretsClient().send(new GetSecretValueCommand({ SecretId: settings.SMTP_TLS_SECRET_ID }));
  const tls = smtpTlsSecretSchema.parse(JSON.parse(secret.SecretString ?? '{}'));
  const service = await startSmtpService({
    listeners: [
      { port: settings.SMTP_PORT, mode: 'starttls' },
      { port: settings.SMTP_TLS_TERMINATED_PORT, mode: 'tls-terminated' },
    ],
    tls: { cert: tls.certificate, key: tls.privateKey },
    hostname: settings.SMTP_HOSTNAME,
    maxMessageBytes: MAX_MIME_MESSAGE_BYTES,
    maxRecipients: MAX_RECIPIENTS,
    // ECS waits 30 s (stopTimeout) after SIGTERM before it kills the task.
    closeTimeoutMs: 25_000,
    // The load balancer's target groups preserve the client's address (lib/constructs/smtp.ts),
    // so the peer is the client: the account's IP allowlist applies to its logins, and failures are
    // counted per client address, not per load balancer node.
    authenticate: (login, password, remoteAddress) => signIn(login, password, remoteAddress),
    submit: submitMessage,
    log: (level, message, fields) => logger[level](message, fields ?? {}),
  });
  logger.info('smtp service listening', { ports: service.ports });
  process.once('SIGTERM', () => {
    logger.info('smtp service stopping');
    void service.close().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  logger.error('smtp service failed to start', { error: error as Error });
  process.exit(1);
});
