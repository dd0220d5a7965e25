/**
 * Removing what `cdk destroy` leaves of a region (docs/operations.md, "Teardown").
 *
 *   npx tsx scripts/teardown.ts list Mailplane-us --region us-east-1 --out retained-us.json
 *       while the stack still exists: its retained resources and their physical names, read from
 *       the stack and its nested stacks, written to the file
 *   npx cdk destroy Mailplane-us
 *   npx tsx scripts/teardown.ts delete retained-us.json
 *       shows them, asks you to type the stack's name, then empties and deletes the buckets,
 *       deletes the table and the log groups, and schedules the secrets' deletion (7 days)
 *
 * Credentials and region come from the usual AWS environment (profile, variables, --region).
 */
import { CloudFormationClient, GetTemplateCommand, ListStackResourcesCommand, type StackResourceSummary } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient, DeleteLogGroupCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteBucketCommand, DeleteObjectsCommand, ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import { DeleteSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { isRemovable, removalOrder, type RetainedResource, retainedIn } from './retained-resources';

export interface Saved {
  stack: string;
  region: string;
  resources: RetainedResource[];
}

function argument(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

async function resourcesOf(cfn: CloudFormationClient, stack: string): Promise<StackResourceSummary[]> {
  const all: StackResourceSummary[] = [];
  let NextToken: string | undefined;
  do {
    const page = await cfn.send(new ListStackResourcesCommand({ StackName: stack, NextToken }));
    all.push(...(page.StackResourceSummaries ?? []));
    NextToken = page.NextToken;
  } while (NextToken);
  return all;
}

/** The stack's retained resources and its nested stacks', each with its physical name. */
async function retainedOf(cfn: CloudFormationClient, stack: string): Promise<RetainedResource[]> {
  const template = JSON.parse((await cfn.send(new GetTemplateCommand({ StackName: stack }))).TemplateBody ?? '{}') as Parameters<typeof retainedIn>[1];
  const resources = await resourcesOf(cfn, stack);
  const physical = Object.fromEntries(resources.map((r) => [r.LogicalResourceId!, r.PhysicalResourceId!]));
  const nested = resources.filter((r) => r.ResourceType === 'AWS::CloudFormation::Stack' && r.PhysicalResourceId);
  return [...retainedIn(stack, template, physical), ...(await Promise.all(nested.map((r) => retainedOf(cfn, r.PhysicalResourceId!)))).flat()];
}

async function emptyBucket(s3: S3Client, bucket: string): Promise<void> {
  let KeyMarker: string | undefined;
  let VersionIdMarker: string | undefined;
  for (;;) {
    const page = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, KeyMarker, VersionIdMarker }));
    const objects = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])].map((v) => ({ Key: v.Key!, VersionId: v.VersionId }));
    if (objects.length) await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
    if (!page.IsTruncated) return;
    KeyMarker = page.NextKeyMarker;
    VersionIdMarker = page.NextVersionIdMarker;
  }
}

export async function remove(saved: Saved): Promise<void> {
  const region = saved.region;
  const s3 = new S3Client({ region });
  const dynamodb = new DynamoDBClient({ region });
  const secrets = new SecretsManagerClient({ region });
  const logs = new CloudWatchLogsClient({ region });
  for (const resource of removalOrder(saved.resources).filter(isRemovable)) {
    const name = resource.physicalId;
    process.stdout.write(`${resource.type} ${name} ... `);
    try {
      if (resource.type === 'AWS::S3::Bucket') {
        await emptyBucket(s3, name);
        await s3.send(new DeleteBucketCommand({ Bucket: name }));
      } else if (resource.type === 'AWS::DynamoDB::Table') {
        await dynamodb.send(new DeleteTableCommand({ TableName: name }));
      } else if (resource.type === 'AWS::SecretsManager::Secret') {
        await secrets.send(new DeleteSecretCommand({ SecretId: name, RecoveryWindowInDays: 7 }));
      } else {
        await logs.send(new DeleteLogGroupCommand({ logGroupName: name }));
      }
      process.stdout.write('deleted\n');
    } catch (error) {
      const e = error as Error;
      // Already gone (deleted by hand, or a log group never written to): nothing left to do.
      process.stdout.write(/NotFound|NoSuchBucket|ResourceNotFound/.test(e.name) ? 'already gone\n' : `failed: ${e.name}: ${e.message}\n`);
    }
  }
}

/**
 * Asks for the stack's name and answers whether it was typed. Input that ends before an answer
 * (no terminal, `< /dev/null`, Ctrl-D) is no confirmation.
 */
export async function confirmed(stack: string, input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stdout): Promise<boolean> {
  const prompt = createInterface({ input, output });
  // The last line's answer settles after the input's close: give it that turn before taking the close as no answer.
  const closed = new Promise<undefined>((resolve) => prompt.once('close', () => setImmediate(() => resolve(undefined))));
  const answer = await Promise.race([prompt.question(`Type the stack's name (${stack}) to go on: `), closed]);
  prompt.close();
  if (answer === undefined) output.write('\n');
  return answer?.trim() === stack;
}

async function main(args: string[]): Promise<void> {
  const [command, target] = args;
  if (command === 'list' && target) {
    const region = argument(args, '--region') ?? process.env['AWS_REGION'] ?? process.env['AWS_DEFAULT_REGION'];
    if (!region) throw new Error('Give the stack\'s region: --region us-east-1');
    const resources = await retainedOf(new CloudFormationClient({ region }), target);
    for (const r of resources) process.stdout.write(`${r.type}\t${r.physicalId ?? '(not created)'}\t${r.stack}/${r.logicalId}\n`);
    const out = argument(args, '--out');
    if (out) writeFileSync(out, `${JSON.stringify({ stack: target, region, resources } satisfies Saved, null, 2)}\n`);
    process.stdout.write(`${resources.length} resources stay after cdk destroy${out ? `; saved to ${out}` : ''}\n`);
    return;
  }
  if (command === 'delete' && target) {
    const saved = JSON.parse(readFileSync(target, 'utf8')) as Saved;
    const removable = saved.resources.filter(isRemovable);
    for (const r of removable) process.stdout.write(`${r.type}\t${r.physicalId}\n`);
    process.stdout.write(`\nThis deletes ${removable.length} resources of ${saved.stack} in ${saved.region} for good: every stored message, account, key and log in them.\n`);
    if (!(await confirmed(saved.stack))) {
      process.stdout.write('Not confirmed: nothing deleted.\n');
      process.exitCode = 1;
      return;
    }
    await remove(saved);
    return;
  }
  process.stderr.write('usage: teardown.ts list <stack> --region <region> [--out retained.json] | teardown.ts delete <retained.json>\n');
  process.exitCode = 2;
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}
