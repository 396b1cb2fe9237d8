/**
 * Earned autonomy's capabilities: the switch, the stops, the pending automatic sends and a
 * category's record (MariaDB, src/autonomy/autonomy-store.mariadb.ts), and the approval an automatic
 * send makes through the email workflow's own `approve` Update (src/autonomy/auto-approver.temporal.ts).
 */
import type { AuditEntry } from '../platform/store.port';
import type { AUTO_SEND_STATES, AutoSendState } from './autonomy.contract';
import type { CategoryRecord } from './autonomy-policy';
import type { ReplayEvidence } from './replay-evidence';

export interface AutonomySwitch {
  on: boolean;
  by: string | null;
  at: Date | null;
}

/**
 * The record an automatic send was allowed on, kept with it and in its audit rows. `reviewed` and
 * `unchanged` are people's live decisions; `share` and `lower` are of what was counted, which
 * includes `replay` when the policy lets a named replay count.
 */
export interface AutonomyFigures {
  category: string;
  reviewed: number;
  unchanged: number;
  share: number;
  /** Lower bound of the unchanged share's 95 % Wilson interval: what `minShare` is compared with. */
  lower: number;
  minReviewed: number;
  minShare: number;
  /** The replay pairs counted beside the live record, and from which runs; absent when none may count. */
  replay?: { runs: string[]; reviewed: number; unchanged: number };
}

/**
 * A listed category's standing at its last verdict (autonomy_standing): `reviewed` and `unchanged`
 * are the live decisions, `lower` the bound judged (with counted replay pairs when the policy names a run).
 */
export interface CategoryStandingRow {
  mailboxId: string;
  category: string;
  qualified: boolean;
  reviewed: number;
  unchanged: number;
  lower: number;
  judgedAt: Date;
  lastDemotedAt: Date | null;
  lastPromotedAt: Date | null;
}

/** What a verdict's judgement changed: `demoted` (qualified before, not now), `promoted`, or nothing. */
export type StandingChange = 'demoted' | 'promoted' | null;

/**
 * One change of a standing: its direction and the standing's version after it (each change counts
 * one up). Mailbox, category and version name the change itself, whichever verdict (or retry of
 * one) made it: its audit row's event key is made of them.
 */
export interface StandingMove {
  change: 'demoted' | 'promoted';
  version: number;
}

export interface PendingAutoSend {
  draftId: string;
  emailId: string;
  mailboxId: string;
  category: string;
  sendAfter: Date;
  policy: string;
  figures: AutonomyFigures;
  state: AutoSendState;
  reason: string | null;
  updatedAt: Date;
}

export type NewPendingAutoSend = Omit<PendingAutoSend, 'state' | 'reason' | 'updatedAt'>;

export interface AutonomyStore {
  switchState(): Promise<AutonomySwitch>;
  /** Turns every automatic send on or off; returns the switch as it now is. */
  setSwitch(on: boolean, by: string): Promise<AutonomySwitch>;
  /**
   * The record of a mailbox's category: its newest `lastN` decided drafts, leaving out those an
   * automatic send approved (no person judged them), and how many were approved unchanged.
   */
  record(mailboxId: string, category: string, lastN: number): Promise<CategoryRecord>;
  /**
   * The replay part of a record: the measured pairs of the named runs (of this mailbox, finished)
   * whose category is `category`, one result per customer mail (the run named first wins), the
   * newest `limit` of them counted. A run that is missing (never made, or deleted), of another
   * mailbox or unfinished counts nothing and says so.
   */
  replayRecord(mailboxId: string, category: string, runIds: readonly string[], limit: number): Promise<ReplayEvidence>;
  /**
   * Records a listed category's judgement; returns the change of `qualified` this call made (one
   * caller of many at once sees it). The first judgement of a category is no change. A change is
   * written in one transaction with its audit row (`audit(move)`, keyed by mailbox, category and
   * the move's version): a failed audit write leaves the standing as it was, so the retry changes
   * it and writes the row, and the demotion's counter and alert cannot miss it; a retry after the
   * commit finds the standing moved and writes nothing.
   */
  noteStanding(
    s: Omit<CategoryStandingRow, 'judgedAt' | 'lastDemotedAt' | 'lastPromotedAt'>,
    audit: (move: StandingMove) => AuditEntry,
  ): Promise<StandingChange>;
  /** Every category's standing, for the status pages. */
  standings(): Promise<CategoryStandingRow[]>;
  /** Every (mailbox, category) that has decided drafts, for status pages. */
  categoriesWithOutcomes(): Promise<Array<{ mailboxId: string; category: string }>>;
  /**
   * Records a stop (the first one is kept); a pending send of the draft becomes `stopped`. Returns
   * the state of the draft's automatic send afterwards, null when none was planned (the stop then
   * keeps any later verdict from planning one).
   */
  stop(emailId: string, draftId: string, by: string): Promise<AutoSendState | null>;
  stoppedBy(draftId: string): Promise<string | null>;
  /** Writes the pending row once: a retried verdict keeps the first one (and its send time). */
  savePending(p: NewPendingAutoSend): Promise<PendingAutoSend>;
  pending(draftId: string): Promise<PendingAutoSend | null>;
  /** `from → to` (compare and swap, `from` defaults to pending); false when it had moved already. */
  settle(
    draftId: string,
    to: Exclude<AutoSendState, typeof AUTO_SEND_STATES.pending>,
    reason: string,
    from?: AutoSendState,
  ): Promise<boolean>;
  /** Automatic sends still pending whose draft still waits for approval (of one email, when given), soonest first. */
  listPending(emailId?: string): Promise<PendingAutoSend[]>;
}

export type ApprovalOutcome = { ok: true } | { ok: false; refused: boolean; message: string };

/** The approval an automatic send makes: the email workflow's `approve` Update, bound to the draft id. */
export interface AutoApprover {
  approve(emailId: string, input: { draftId: string; by: string }): Promise<ApprovalOutcome>;
  /** The decision the email's workflow took on its current draft, if any (who and which draft). */
  decision(emailId: string): Promise<{ by: string; draftId: string } | null>;
}
