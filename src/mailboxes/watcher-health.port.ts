import type { WatcherState } from './mailboxes.contract';

/** How one folder's IDLE watcher stands (`mailbox_watchers`), by the database's clock. */
export interface WatcherRow {
  mailboxId: string;
  folder: string;
  state: WatcherState;
  /** When it entered this state. */
  since: Date;
  /** Seconds since its last heartbeat: a large figure means its worker is gone. */
  secondsSinceSeen: number;
  lastError: string | null;
  lastErrorAt: Date | null;
  /** Connections lost or refused, ever. */
  reconnects: number;
  /** New-mail notices that woke the poll, ever. */
  wakeups: number;
}

/** Bookkeeping of the IDLE watchers for `email-rag status` and the metrics; upserts on (mailbox, folder). */
export interface WatcherHealth {
  /** Enters a state; `reconnecting` counts a reconnect and keeps `error`. */
  enter(input: { mailboxId: string; folder: string; state: WatcherState; error?: string }): Promise<void>;
  /** The watcher is alive (its heartbeat). */
  seen(input: { mailboxId: string; folder: string }): Promise<void>;
  /** A new-mail notice woke the poll. */
  wokeUp(input: { mailboxId: string; folder: string }): Promise<void>;
  list(): Promise<WatcherRow[]>;
}
