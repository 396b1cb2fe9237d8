import type { HistoryMail } from './replay-context';
import type { ReplayDirection, ReplayOutcome, ReplayResultState, ReplayRunStatus } from './replay.contract';

export interface NewReplayRun {
  id: string;
  mailboxId: string;
  archiveName: string;
  teamAddresses: string[];
  messages: number;
  customerMails: number;
  pairs: number;
  createdBy: string;
}

export interface ReplayMessageRow {
  key: string;
  threadKey: string;
  direction: ReplayDirection;
  correspondent: string;
  fromAddress: string;
  fromName: string;
  sentAt: Date;
  subject: string;
  body: string;
}

export interface ReplayPairRow {
  pairId: string;
  replyKey: string;
  correspondent: string;
  customerAt: Date;
}

/** What drafting one pair needs: the mail, the reply the team sent, and the correspondent's mail before it. */
export interface ReplayPairInput {
  runId: string;
  pairId: string;
  mailboxId: string;
  correspondent: string;
  customer: HistoryMail & { fromName: string };
  reply: HistoryMail;
  /** The correspondent's mail in the archive dated strictly before the customer mail, oldest first. */
  history: HistoryMail[];
}

export interface ReplayResultRow {
  runId: string;
  pairId: string;
  correspondent: string;
  state: ReplayResultState;
  outcome: ReplayOutcome | null;
  similarity: number | null;
  /** The non-answer's similarity to the sent reply on the same pair (migration 035; null in older runs). */
  nonAnswerSimilarity: number | null;
  editShare: number | null;
  factsTotal: number;
  factsFound: number;
  category: string;
  language: string;
  knowledgeGap: boolean;
  draftBody: string | null;
  drafter: string;
  model: string;
  contextIds: string[];
  error: string | null;
}

export interface ReplayRunView {
  id: string;
  mailboxId: string;
  archiveName: string;
  status: ReplayRunStatus;
  messages: number;
  customerMails: number;
  total: number;
  done: number;
  failed: number;
  createdBy: string;
  createdAt: Date;
  finishedAt: Date | null;
}

/** One pair's result as the report reads it, with the customer mail's subject and opening for the gaps. */
export interface ReplayReportRow extends Pick<
  ReplayResultRow,
  | 'pairId'
  | 'state'
  | 'outcome'
  | 'similarity'
  | 'nonAnswerSimilarity'
  | 'editShare'
  | 'factsTotal'
  | 'factsFound'
  | 'category'
  | 'language'
  | 'knowledgeGap'
> {
  mailboxId: string;
  subject: string;
  body: string;
  at: Date;
}

/** An earlier pair of a run as an example's candidate: the team's reply and the mail it answered. */
export interface EarlierReply {
  customer: { subject: string; body: string; fromName: string; fromAddress: string };
  /** The reply as sent, quotes and all. */
  reply: { body: string; sentAt: Date };
}

/** The replay's own tables (migrations 033, 034): nothing here touches the live pipeline's. */
export interface ReplayStore {
  createRun(run: NewReplayRun, messages: ReplayMessageRow[], pairs: ReplayPairRow[]): Promise<void>;
  /** Pairs without a result yet, oldest customer mail first. */
  pendingPairs(runId: string, limit: number): Promise<string[]>;
  loadPair(runId: string, pairId: string): Promise<ReplayPairInput | null>;
  /**
   * The run's pairs whose team reply was sent strictly before `before` (no look-ahead: what the
   * team had written by the replayed mail's day), newest reply first, at most `limit`.
   */
  earlierReplies(runId: string, before: Date, limit: number): Promise<EarlierReply[]>;
  hasResult(runId: string, pairId: string): Promise<boolean>;
  /** Upserted by (run, pair): a pair measured twice keeps one row. */
  saveResult(result: ReplayResultRow): Promise<void>;
  finish(runId: string): Promise<void>;
  run(runId: string): Promise<ReplayRunView | null>;
  runs(limit: number): Promise<ReplayRunView[]>;
  reportRows(runId: string): Promise<ReplayReportRow[]>;
  /** The run with its messages, pairs and results, in one transaction; null when there is no such run. */
  deleteRun(runId: string): Promise<{ messages: number; pairs: number; results: number } | null>;
  /** When the knowledge ledger last saw each file's content change (knowledge_files.indexed_at). */
  knowledgeDates(): Promise<Map<string, Date>>;
}
