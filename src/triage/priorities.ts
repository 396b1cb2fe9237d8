/**
 * An email's priority (set at intake by the mailbox's rules) and its order as a Temporal priority
 * key. Free of I/O: the email's workflow imports it.
 */
export const PRIORITIES = ['critical', 'high', 'normal', 'low'] as const;

export type Priority = (typeof PRIORITIES)[number];

/** Maps a priority to Temporal's priorityKey (1 runs first). */
export function priorityKey(priority: Priority): number {
  return { critical: 1, high: 2, normal: 3, low: 4 }[priority];
}
