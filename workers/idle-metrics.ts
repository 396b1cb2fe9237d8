import type { MetricMeter, MetricTags } from '@temporalio/common';
import { WATCHER_VIEWS, watcherStatus, type WatcherRow } from '../src/mailboxes';
import { labelledGauge } from './labelled-gauge';

/**
 * Push intake: folders of each enabled mailbox per watcher state (idle, connecting,
 * reconnecting, stale, off, …), and connections lost since this worker started sampling (from
 * the rows' running count, so every worker reports the fleet's reconnects).
 */
export function idleMetrics(
  meter: MetricMeter,
  names: { watchers: string; reconnects: string },
  mailboxes: Array<{ id: string; folders: string[] }>,
  source?: { on: boolean; list(): Promise<WatcherRow[]> },
) {
  const watchers = labelledGauge(meter.createGauge(names.watchers, 'int', '', 'Folders of enabled mailboxes per IDLE watcher state'));
  const reconnects = meter.createCounter(names.reconnects, '', 'IDLE watcher connections lost or refused, per mailbox');
  for (const b of mailboxes) reconnects.add(0, { mailbox: b.id });
  let seen: Map<string, number> | undefined;
  return {
    async sample(): Promise<void> {
      if (!source) return;
      const rows = await source.list();
      watchers(
        mailboxes.flatMap((b) =>
          WATCHER_VIEWS.map((state): [MetricTags, number] => [
            { mailbox: b.id, state },
            b.folders.filter(
              (f) =>
                watcherStatus(
                  source.on,
                  rows.find((r) => r.mailboxId === b.id && r.folder === f),
                ).view === state,
            ).length,
          ]),
        ),
      );
      const now = new Map<string, number>();
      for (const r of rows) now.set(r.mailboxId, (now.get(r.mailboxId) ?? 0) + r.reconnects);
      for (const b of mailboxes) {
        const before = seen?.get(b.id);
        const total = now.get(b.id) ?? 0;
        if (before !== undefined && total > before) reconnects.add(total - before, { mailbox: b.id });
      }
      seen = now;
    },
  };
}
