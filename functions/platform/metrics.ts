/**
 * CloudWatch metrics written as log lines in the Embedded Metric Format: Lambda's log delivery
 * turns each line into metric data points, with no PutMetricData call (and no client in the
 * bundle). Written to stdout directly, not through the logger, whose level could drop them.
 */
export interface MetricValue {
  value: number;
  unit: 'Count' | 'Percent';
}

/** One EMF document: `values` under `namespace`, with `dimensions` (their names and values). */
export function emfLine(namespace: string, dimensions: Record<string, string>, values: Record<string, MetricValue>, at = Date.now()): string {
  return JSON.stringify({
    _aws: {
      Timestamp: at,
      CloudWatchMetrics: [{ Namespace: namespace, Dimensions: [Object.keys(dimensions)], Metrics: Object.entries(values).map(([Name, { unit }]) => ({ Name, Unit: unit })) }],
    },
    ...dimensions,
    ...Object.fromEntries(Object.entries(values).map(([name, { value }]) => [name, value])),
  });
}

export function emitMetrics(namespace: string, dimensions: Record<string, string>, values: Record<string, MetricValue>, at = Date.now()): void {
  process.stdout.write(`${emfLine(namespace, dimensions, values, at)}\n`);
}
