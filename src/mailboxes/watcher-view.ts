import { WATCHER_STATES, WATCHER_VIEW, type WatcherView } from './mailboxes.contract';
import type { WatcherRow } from './watcher-health.port';

/** A watcher silent for longer than this (three missed database heartbeats) has lost its worker. */
export const WATCHER_STALE_SECONDS = 60;

/** How a folder's IDLE watcher stands for an operator: its stored state, `stale`, or `off`. */
export interface WatcherStatus {
  view: WatcherView;
  row: WatcherRow | null;
}

/**
 * `off`: IMAP_IDLE is off, the mailbox is disabled, or no watcher has run yet (`schedules
 * install` starts them). A row whose heartbeat stopped is `stale`, not idle: its worker is gone
 * and Temporal moves the watch to another one after the heartbeat timeout.
 */
export function watcherStatus(on: boolean, row: WatcherRow | undefined): WatcherStatus {
  if (!on || !row || row.state === WATCHER_STATES.stopped) return { view: WATCHER_VIEW.off, row: row ?? null };
  if (row.secondsSinceSeen > WATCHER_STALE_SECONDS) return { view: WATCHER_VIEW.stale, row };
  return { view: row.state, row };
}

export function watcherLine(w: WatcherStatus): string {
  const r = w.row;
  switch (w.view) {
    case WATCHER_VIEW.off:
      return 'push (IDLE): off';
    case WATCHER_VIEW.stale:
      return `push (IDLE): STALE, no heartbeat for ${r!.secondsSinceSeen} s (was ${r!.state})`;
    case WATCHER_STATES.reconnecting:
      return `push (IDLE): RECONNECTING since ${r!.since.toISOString()}; last error: ${r!.lastError ?? 'unknown'}`;
    default:
      return `push (IDLE): ${w.view} since ${r!.since.toISOString()}, ${r!.wakeups} wake-ups, ${r!.reconnects} reconnects`;
  }
}
