/** What `email-rag status` and the metrics make of a folder's watcher row. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WATCHER_STATES, WATCHER_VIEW } from '../../src/mailboxes/mailboxes.contract';
import { WATCHER_STALE_SECONDS, watcherLine, watcherStatus } from '../../src/mailboxes/watcher-view';
import type { WatcherRow } from '../../src/mailboxes/watcher-health.port';

const row = (over: Partial<WatcherRow> = {}): WatcherRow => ({
  mailboxId: 'support',
  folder: 'INBOX',
  state: WATCHER_STATES.idle,
  since: new Date('2026-01-05T08:00:00.000Z'),
  secondsSinceSeen: 3,
  lastError: null,
  lastErrorAt: null,
  reconnects: 2,
  wakeups: 7,
  ...over,
});

test('a live row shows its state; a silent one is stale; no row, IDLE off or a stopped watcher is off', () => {
  assert.equal(watcherStatus(true, row()).view, WATCHER_STATES.idle);
  assert.equal(watcherStatus(true, row({ state: WATCHER_STATES.reconnecting })).view, WATCHER_STATES.reconnecting);
  assert.equal(watcherStatus(true, row({ secondsSinceSeen: WATCHER_STALE_SECONDS + 1 })).view, WATCHER_VIEW.stale);
  assert.equal(watcherStatus(true, undefined).view, WATCHER_VIEW.off);
  assert.equal(watcherStatus(false, row()).view, WATCHER_VIEW.off, 'IMAP_IDLE off or mailbox disabled');
  assert.equal(watcherStatus(true, row({ state: WATCHER_STATES.stopped })).view, WATCHER_VIEW.off);
});

test('the status line names the state, since when and, while reconnecting, the last error', () => {
  assert.equal(watcherLine(watcherStatus(true, row())), 'push (IDLE): idle since 2026-01-05T08:00:00.000Z, 7 wake-ups, 2 reconnects');
  assert.equal(
    watcherLine(watcherStatus(true, row({ state: WATCHER_STATES.reconnecting, lastError: 'IMAP_UNAVAILABLE: connection closed' }))),
    'push (IDLE): RECONNECTING since 2026-01-05T08:00:00.000Z; last error: IMAP_UNAVAILABLE: connection closed',
  );
  assert.equal(watcherLine(watcherStatus(true, row({ secondsSinceSeen: 95 }))), 'push (IDLE): STALE, no heartbeat for 95 s (was idle)');
  assert.equal(watcherLine(watcherStatus(false, undefined)), 'push (IDLE): off');
});
