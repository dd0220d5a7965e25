import { Duration, Validations } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { handlerEntry } from '../paths';
import { EVENT_STREAM_BATCH_SIZE, EVENT_STREAM_BATCHING_WINDOW_SECONDS } from '../../functions/event-stream/process-batch';
import { EVENT_ITEM_KIND } from '../../functions/events/event-store';
import { type AreaResources, grantEventStreamWorker } from './area-permissions';
import { PlatformFunction } from './platform-function';
import { deadLetterQueue } from './queue';

/** A batch is a few hundred events turned into counter updates and queued webhooks. */
const EVENT_STREAM_TIMEOUT = Duration.minutes(1);
/** With the large batches (process-batch.ts), a short window: up to this much delay. */
const EVENT_STREAM_BATCHING_WINDOW = Duration.seconds(EVENT_STREAM_BATCHING_WINDOW_SECONDS);

export interface EventStreamProps {
  resources: AreaResources;
  environment: Record<string, string>;
}

/**
 * The table's stream of new events (INSERTs of kind=event) and the Lambda that hands them to the
 * consumers in functions/event-stream/handler.ts. A failed batch is offered again from its first
 * record, not bisected: each consumer marks how far it got under that first record
 * (process-batch.ts), which only holds if the retry starts where the batch did. A batch that
 * fails every retry is described on the failure queue (records stay in the stream for 24 hours)
 * instead of blocking the shard.
 */
export class EventStream extends Construct {
  readonly worker: PlatformFunction;
  readonly failures: sqs.Queue;

  constructor(scope: Construct, id: string, props: EventStreamProps) {
    super(scope, id);
    const { table } = props.resources;
    this.worker = new PlatformFunction(this, 'Worker', {
      entry: handlerEntry('event-stream'),
      description: 'Table stream consumer: analytics counters, tag registry and webhooks for new events',
      environment: props.environment,
      timeout: EVENT_STREAM_TIMEOUT,
    });
    grantEventStreamWorker(this.worker.grantee, props.resources);

    this.failures = deadLetterQueue(this, 'Failures');
    Validations.of(this.failures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the dead end of the stream: it receives descriptions of batches that failed every retry, for an operator to replay from the stream.',
    });
    this.worker.fn.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: EVENT_STREAM_BATCH_SIZE,
        maxBatchingWindow: EVENT_STREAM_BATCHING_WINDOW,
        bisectBatchOnError: false,
        retryAttempts: 10,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.failures),
        filters: [
          lambda.FilterCriteria.filter({
            eventName: lambda.FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { kind: { S: lambda.FilterRule.isEqual(EVENT_ITEM_KIND) } } },
          }),
        ],
      }),
    );
    Validations.of(this.worker.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: "dynamodb:ListStreams, which the stream event source needs, supports no resource-level permissions; the stream's own actions are scoped to the table's stream ARN.",
    });
  }
}
