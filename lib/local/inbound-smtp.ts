import { PutObjectCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { receivesFor } from '../../functions/inbound/receive';
import { INBOUND_OBJECT_PREFIX, type SesReceipt, type Verdict } from '../../functions/inbound/receipt';
import { s3Client } from '../../functions/platform/aws-clients';

/**
 * SES receiving, as local mode stands it in: an SMTP server (nodemailer's smtp-server) that takes
 * mail for any domain this region holds, as the domain's MX would lead it to SES, and does what the
 * stack's receipt rule does: the raw message to the bucket under `inbound/`, with SES's verdict
 * headers, then the S3 action's notification (in SNS's envelope) to the inbound queue. From there
 * the same worker runs as on AWS. Mail for any other domain is refused at RCPT TO with 550.
 *
 * No AUTH and no STARTTLS, as port 25 from the Internet: it listens on loopback unless HOST says otherwise.
 */

/** SES's own limit on a message its S3 action stores. */
const MAX_INBOUND_BYTES = 40 * 1024 * 1024;

// The test strings spam and virus scanners recognise, SES's included (GTUBE, EICAR).
const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

export interface InboundSmtpOptions {
  port: number;
  host: string;
  bucket: string;
  /** Runs a call with the region's configuration (its table, its S3 stand-in). */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Puts a notification on the inbound queue. */
  notify(body: string): void;
  closeTimeoutMs?: number;
}

export interface InboundSmtp {
  port: number;
  /**
   * Receives a message as if it had come in over SMTP: how SES's own deliveries to the region's
   * receiving domains (seed list targets) come back in, as on AWS SES delivers to its own MX.
   */
  accept(raw: Buffer, mailFrom: string, recipients: string[]): Promise<string>;
  close(): Promise<void>;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

export async function startInboundSmtp(options: InboundSmtpOptions): Promise<InboundSmtp> {
  /** What the receipt rule does with an accepted message: stored with SES's verdicts, then notified. */
  async function accept(raw: Buffer, mailFrom: string, recipients: string[]): Promise<string> {
    const text = raw.toString('latin1');
    const spam: Verdict = text.includes(GTUBE) ? 'FAIL' : 'PASS';
    const virus: Verdict = text.includes(EICAR) ? 'FAIL' : 'PASS';
    const messageId = randomBytes(16).toString('hex');
    const objectKey = `${INBOUND_OBJECT_PREFIX}${messageId}`;
    // SES adds its verdicts to the stored message when the rule scans (as the stack's does).
    const stored = Buffer.concat([Buffer.from(`X-SES-Spam-Verdict: ${spam}\r\nX-SES-Virus-Verdict: ${virus}\r\n`), raw]);
    const receipt: SesReceipt = {
      notificationType: 'Received',
      mail: { messageId, timestamp: new Date().toISOString(), source: mailFrom },
      receipt: {
        recipients,
        spamVerdict: { status: spam },
        virusVerdict: { status: virus },
        action: { type: 'S3', bucketName: options.bucket, objectKey },
      },
    };
    await options.run(() => s3Client().send(new PutObjectCommand({ Bucket: options.bucket, Key: objectKey, Body: stored, ContentType: 'message/rfc822' })));
    options.notify(JSON.stringify({ Type: 'Notification', MessageId: messageId, TopicArn: 'arn:aws:sns:local:000000000000:inbound', Message: JSON.stringify(receipt), Timestamp: receipt.mail.timestamp }));
    return messageId;
  }
  const server = new SMTPServer({
    name: 'localhost',
    banner: 'Mailplane inbound (SES receiving stand-in)',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: MAX_INBOUND_BYTES,
    disableReverseLookup: true,
    logger: false,
    closeTimeout: options.closeTimeoutMs ?? 10_000,
    onRcptTo(address, _session, callback) {
      const domain = address.address.split('@')[1] ?? '';
      options
        // The platform's own receiving domains take mail too (SES receives for every verified identity).
        .run(() => receivesFor(domain))
        .then((receives) => callback(receives ? null : smtpError(550, `5.1.1 Recipient address rejected: ${domain} is not a domain of this region`)))
        .catch(() => callback(smtpError(451, 'Temporary failure, please try again later')));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (stream.sizeExceeded) return callback(smtpError(552, `Message exceeds the maximum size of ${MAX_INBOUND_BYTES} bytes`));
        accept(Buffer.concat(chunks), session.envelope.mailFrom ? session.envelope.mailFrom.address : '', session.envelope.rcptTo.map((rcpt) => rcpt.address))
          .then((messageId) => callback(null, `Ok ${messageId}`))
          .catch(() => callback(smtpError(451, 'Temporary failure, please try again later')));
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    port: (server.server.address() as AddressInfo).port,
    accept,
    close() {
      closing ??= new Promise<void>((resolve) => server.close(() => resolve()));
      return closing;
    },
  };
}
