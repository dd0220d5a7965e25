/**
 * Runs `fn` over `items` with at most `limit` calls in flight, keeping the order of results;
 * rejects on the first failure. Bounds the fan-out of many small DynamoDB, S3 or SQS calls.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
