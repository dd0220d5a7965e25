import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface QueueWithDlqProps {
  /** At least six times the consumer Lambda's timeout (AWS guidance), so batches are not redelivered mid-flight. */
  visibilityTimeout: Duration;
  /** Deliveries before a message is parked in the DLQ. */
  maxReceiveCount?: number;
  retentionPeriod?: Duration;
  /** The dead-letter queue's own, when a consumer reads it (six times that consumer's timeout). */
  deadLetterVisibilityTimeout?: Duration;
}

const deadLetterQueues = new WeakSet<sqs.IQueue>();

/** Whether failed work is parked in this queue (deadLetterQueue made it): the alarms want it empty. */
export const isDeadLetterQueue = (queue: sqs.IQueue) => deadLetterQueues.has(queue);

/**
 * A queue where failed work is parked: encrypted, TLS-only, and kept as long as SQS allows, so
 * someone has time to look before a failed message is gone.
 */
export function deadLetterQueue(scope: Construct, id: string, visibilityTimeout?: Duration): sqs.Queue {
  const queue = new sqs.Queue(scope, id, {
    visibilityTimeout,
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  deadLetterQueues.add(queue);
  return queue;
}

/** An SQS queue with its dead-letter queue: encrypted, TLS-only, poison messages parked after a few tries. */
export class QueueWithDlq extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: QueueWithDlqProps) {
    super(scope, id);

    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetters', props.deadLetterVisibilityTimeout);

    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: props.visibilityTimeout,
      retentionPeriod: props.retentionPeriod,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? 5 },
    });
  }
}
