import type { Priority } from '../platform/domain';

/**
 * Priority from the headers a mail client sets: `X-Priority` (1 highest … 5 lowest),
 * `Importance` and `Priority`. Sender and keyword rules refine this later.
 */
export function priorityFromHeaders(headers: { xPriority?: string; importance?: string; priority?: string }): Priority {
  const x = headers.xPriority ? Number.parseInt(headers.xPriority, 10) : NaN;
  if (x === 1) return 'high';
  if (x === 5 || x === 4) return 'low';
  const word = `${headers.importance ?? ''} ${headers.priority ?? ''}`.toLowerCase();
  if (/\burgent\b/.test(word)) return 'critical';
  if (/\bhigh\b/.test(word)) return 'high';
  if (/\b(low|non-urgent|bulk|list|junk)\b/.test(word)) return 'low';
  return 'normal';
}
