import { Aws, Stack, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';

/** What an area's Lambda may be granted access to. */
export interface AreaResources {
  table: dynamodb.Table;
  encryptionKey: secretsmanager.ISecret;
}

/** The grantee and the construct whose subtree the acknowledgements of its findings apply to. */
export interface AreaGrantee {
  role: iam.IRole;
  scope: Construct;
}

type AreaGrant = (grantee: AreaGrantee, resources: AreaResources) => void;

/** The SES v2 calls of the domains area: it registers sending identities, and nothing else. */
export const SES_IDENTITY_ACTIONS = [
  'ses:CreateEmailIdentity',
  'ses:GetEmailIdentity',
  'ses:DeleteEmailIdentity',
  'ses:PutEmailIdentityDkimSigningAttributes',
  'ses:PutEmailIdentityMailFromAttributes',
] as const;

/** Read/write on the table and its indexes (the key design needs gsi1 for listings). */
export function grantTableReadWrite(grantee: AreaGrantee, table: dynamodb.Table): void {
  table.grantReadWriteData(grantee.role);
  const tableLogicalId = Stack.of(table).getLogicalId(table.node.defaultChild as dynamodb.CfnTable);
  Validations.of(grantee.scope).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
    reason: "Queries on the table's own global secondary indexes (gsi1); the wildcard names no other table.",
  });
}

/** One GetItem on the table itself: all the authorizer does is look a key up by its hash. */
export function grantKeyLookup(grantee: AreaGrantee, table: dynamodb.Table): void {
  // Not table.grant(): it adds the table's index/* ARN too, which a GetItem never needs.
  grantee.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['dynamodb:GetItem'], resources: [table.tableArn] }));
}

const tableReadWrite: AreaGrant = (grantee, { table }) => grantTableReadWrite(grantee, table);

/**
 * Each API area's permissions, in one place. An area not listed gets table read/write only, so a
 * new area works out of the box and anything more is a visible line here.
 */
export const areaPermissions: Readonly<Record<string, AreaGrant>> = {
  keys: tableReadWrite,
  domains: (grantee, { table, encryptionKey }) => {
    grantTableReadWrite(grantee, table);
    encryptionKey.grantRead(grantee.role);
    grantee.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: [...SES_IDENTITY_ACTIONS],
        // Pseudo parameters even where the stack's env is known, so the ARN (and the finding id
        // acknowledged below) reads the same in every region and account.
        resources: [`arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:identity/*`],
      }),
    );
    Validations.of(grantee.scope).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
      reason: "Customers add their own sending domains at run time, so the identity names are not known at deploy time; the wildcard stays within this account and region's SES identities.",
    });
  },
};

export function grantArea(area: string, grantee: AreaGrantee, resources: AreaResources): void {
  (areaPermissions[area] ?? tableReadWrite)(grantee, resources);
}
