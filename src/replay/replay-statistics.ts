/**
 * The intervals of the replay report. Means (similarity, edit share) get Student's t-interval at
 * 95 %: the pairs are independent draws from the team's mail, the means of a few dozen of them are
 * near normal, and unlike a bootstrap it is the same on every run (deterministic). Shares get the
 * Wilson interval (src/platform/wilson-interval.ts), which stays honest for small counts.
 */
import { wilsonInterval, Z_95 } from '../platform/wilson-interval';

/** Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom (any statistics table). */
const T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086,
  2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
] as const;

/** t(0.975, df): the table up to 30, above it the Cornish–Fisher expansion (within 0.001 of the table values at 40, 60, 120). */
export function tQuantile975(df: number): number {
  if (df < 1) return Number.NaN;
  if (df <= 30) return T_975[Math.floor(df) - 1]!;
  const z = Z_95;
  return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df);
}

export interface MeanInterval {
  n: number;
  mean: number;
  /** Null below two values: one value has no spread to judge by. */
  lower: number | null;
  upper: number | null;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** Mean and its 95 % t-interval, the bounds kept within the measure's range. */
export function meanInterval(values: readonly number[], range: [number, number]): MeanInterval | null {
  const n = values.length;
  if (n === 0) return null;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { n, mean: round4(mean), lower: null, upper: null };
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
  const half = tQuantile975(n - 1) * Math.sqrt(variance / n);
  return { n, mean: round4(mean), lower: round4(Math.max(range[0], mean - half)), upper: round4(Math.min(range[1], mean + half)) };
}

export interface ShareInterval {
  count: number;
  of: number;
  share: number;
  lower: number;
  upper: number;
}

export function shareInterval(count: number, of: number): ShareInterval {
  const { lower, upper } = wilsonInterval(count, of);
  return { count, of, share: of === 0 ? 0 : round4(count / of), lower: round4(lower), upper: round4(upper) };
}
