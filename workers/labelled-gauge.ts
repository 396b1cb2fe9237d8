import type { MetricGauge, MetricTags } from '@temporalio/common';

/**
 * A gauge whose label sets come and go (dead letters of a step, …): a set that disappears from
 * the database is set to 0, not left at its last value.
 */
export function labelledGauge(gauge: MetricGauge) {
  const seen = new Map<string, MetricTags>();
  return (values: Array<[MetricTags, number]>) => {
    const now = new Map(values.map(([tags, v]) => [JSON.stringify(tags), [tags, v] as const]));
    for (const [key, tags] of seen) if (!now.has(key)) gauge.set(0, tags);
    for (const [key, [tags, v]] of now) {
      gauge.set(v, tags);
      seen.set(key, tags);
    }
  };
}
