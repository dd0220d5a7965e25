/**
 * What `cdk destroy` leaves of a stack: the resources of its template (and its nested stacks')
 * whose DeletionPolicy keeps them, the kinds this script knows how to remove.
 */
export const REMOVABLE_TYPES = ['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::SecretsManager::Secret', 'AWS::Logs::LogGroup'] as const;
export type RemovableType = (typeof REMOVABLE_TYPES)[number];

export interface RetainedResource {
  /** The stack (or nested stack) that made it, by name. */
  stack: string;
  logicalId: string;
  type: string;
  /** The name or ARN AWS knows it by (a stack's resource list gives it). */
  physicalId?: string;
}

interface TemplateResource {
  Type: string;
  DeletionPolicy?: string;
}

const KEPT = new Set(['Retain', 'RetainExceptOnCreate']);

/** The resources of one template CloudFormation keeps when it deletes the stack. */
export function retainedIn(stack: string, template: { Resources?: Record<string, TemplateResource> }, physicalIds: Record<string, string> = {}): RetainedResource[] {
  return Object.entries(template.Resources ?? {})
    .filter(([, resource]) => resource.DeletionPolicy !== undefined && KEPT.has(resource.DeletionPolicy))
    .map(([logicalId, resource]) => ({ stack, logicalId, type: resource.Type, physicalId: physicalIds[logicalId] }));
}

export const isRemovable = (resource: RetainedResource): resource is RetainedResource & { type: RemovableType; physicalId: string } =>
  (REMOVABLE_TYPES as readonly string[]).includes(resource.type) && Boolean(resource.physicalId);

/**
 * The order to remove them in: the access-log buckets last (the other buckets' deletions are
 * logged into them), log groups after what writes to them.
 */
export function removalOrder(resources: RetainedResource[]): RetainedResource[] {
  const rank = (r: RetainedResource) => (r.type === 'AWS::Logs::LogGroup' ? 3 : r.type === 'AWS::S3::Bucket' && /AccessLogs/.test(r.logicalId) ? 2 : r.type === 'AWS::S3::Bucket' ? 1 : 0);
  return [...resources].sort((a, b) => rank(a) - rank(b));
}
