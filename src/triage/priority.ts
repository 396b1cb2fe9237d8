import { PRIORITIES, type Priority } from './priorities';

export interface PriorityRule {
  priority: Priority;
  kind: 'sender' | 'domain' | 'keyword';
  value: string;
}

const RANK: Record<Priority, number> = { critical: 0, high: 1, normal: 2, low: 3 };

/** The more urgent of two priorities. */
export function higher(a: Priority, b: Priority): Priority {
  return RANK[a] <= RANK[b] ? a : b;
}

/**
 * Parses `PRIORITY_RULES`: `priority:kind=value` entries separated by `;`, e.g.
 * `critical:sender=ceo@example.com;high:domain=bigcustomer.example;high:keyword=dringend;low:keyword=newsletter`.
 * Returns the rules or a list of problems.
 */
export function parsePriorityRules(text: string | undefined): { rules: PriorityRule[]; problems: string[] } {
  const rules: PriorityRule[] = [];
  const problems: string[] = [];
  for (const entry of (text ?? '')
    .split(';')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^(\w+):(sender|domain|keyword)=(.+)$/.exec(entry);
    if (!m || !(PRIORITIES as readonly string[]).includes(m[1]!)) {
      problems.push(
        `PRIORITY_RULES entry "${entry}" is not priority:sender|domain|keyword=value (priority one of ${PRIORITIES.join(', ')})`,
      );
      continue;
    }
    rules.push({ priority: m[1] as Priority, kind: m[2] as PriorityRule['kind'], value: m[3]!.trim().toLowerCase() });
  }
  return { rules, problems };
}

/**
 * The most urgent priority that the headers or any rule give; `normal` when nothing matches.
 * Keywords match whole words in the subject, case-insensitively.
 */
export function effectivePriority(fromHeaders: Priority, msg: { from: string | null; subject: string }, rules: PriorityRule[]): Priority {
  const from = (msg.from ?? '').toLowerCase();
  const domain = from.split('@')[1] ?? '';
  const words = new Set(
    msg.subject
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean),
  );
  let result = fromHeaders;
  for (const rule of rules) {
    const hit =
      (rule.kind === 'sender' && from === rule.value) ||
      (rule.kind === 'domain' && (domain === rule.value || domain.endsWith(`.${rule.value}`))) ||
      (rule.kind === 'keyword' && words.has(rule.value));
    if (!hit) continue;
    // A rule may lower priority (e.g. newsletters) only when the headers did not raise it.
    result = rule.priority === 'low' && fromHeaders === 'normal' && result === 'normal' ? 'low' : higher(result, rule.priority);
  }
  return result;
}

/** Aging: one level more urgent for every `stepMs` waited, never above critical. */
export function agedPriorityKey(baseKey: number, waitedMs: number, stepMs: number): number {
  return Math.max(1, baseKey - Math.floor(Math.max(0, waitedMs) / stepMs));
}

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
