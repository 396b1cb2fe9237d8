/**
 * The Wilson score interval of a share: where the true rate of `successes` in `trials` lies with
 * 95 % confidence (z = 1.96). Unlike the plain share ± a normal error it stays inside 0..1 and is
 * honest for small counts: 19 of 20 is 0.95 as a share, but the interval is 0.76–0.99, because a
 * rate of 80 % produces 19 of 20 now and then. Earned autonomy judges a category by the lower
 * bound; reports print both ends. Eight lines of arithmetic, so no statistics package.
 */
export const Z_95 = 1.959964;

export interface Interval {
  lower: number;
  upper: number;
}

export function wilsonInterval(successes: number, trials: number, z = Z_95): Interval {
  if (trials <= 0) return { lower: 0, upper: 1 };
  const p = Math.min(1, Math.max(0, successes / trials));
  const z2 = z * z;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (z / (1 + z2 / trials)) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return { lower: Math.max(0, centre - half), upper: Math.min(1, centre + half) };
}
