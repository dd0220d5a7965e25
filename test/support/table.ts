import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../functions/platform/aws-clients';
import { env } from '../../functions/platform/env';
import type { RegionHost } from '../../lib/local/region-host';

/** Every raw item of a region's table, keys included: for tests that inspect what is stored. */
export function scanTable(region: RegionHost): Promise<Array<Record<string, unknown>>> {
  return region.run(async () => {
    const items: Array<Record<string, unknown>> = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await documentClient().send(new ScanCommand({ TableName: env().TABLE_NAME, ExclusiveStartKey: start }));
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start);
    return items;
  });
}
