import type { MetricMeter, MetricTags } from '@temporalio/common';
import { PRIORITIES } from '../src/triage';
import type { CaseFigures } from '../src/cases';
import { labelledGauge } from './labelled-gauge';

/**
 * Case deadlines: open cases past their due time per mailbox and priority (the alert
 * EmailRagCaseResponseOverdue), and missed deadlines escalated since this worker started sampling
 * (from the case history's running total, so every worker reports the fleet's escalations).
 */
export function caseMetrics(
  meter: MetricMeter,
  names: { overdue: string; escalations: string },
  mailboxes: Array<{ id: string }>,
  source?: CaseFigures,
) {
  const overdue = labelledGauge(
    meter.createGauge(names.overdue, 'int', '', 'Open cases whose customer waits past the response deadline, per mailbox and priority'),
  );
  const escalations = meter.createCounter(
    names.escalations,
    '',
    'Cases that missed their response deadline and were escalated, per mailbox',
  );
  for (const b of mailboxes) escalations.add(0, { mailbox: b.id });
  let seen: Map<string, number> | undefined;
  return {
    async sample(): Promise<void> {
      if (!source) return;
      const [late, breaches] = await Promise.all([source.overdue(), source.breaches()]);
      const ids = [...new Set([...mailboxes.map((b) => b.id), ...late.map((r) => r.mailboxId)])];
      overdue(
        ids.flatMap((mailbox) =>
          PRIORITIES.map((priority): [MetricTags, number] => [
            { mailbox, priority },
            late.find((r) => r.mailboxId === mailbox && r.priority === priority)?.count ?? 0,
          ]),
        ),
      );
      const now = new Map(breaches.map((r) => [r.mailboxId, r.count]));
      if (seen) {
        for (const [mailbox, total] of now) {
          const before = seen.get(mailbox) ?? 0;
          if (total > before) escalations.add(total - before, { mailbox });
        }
      }
      seen = now;
    },
  };
}
