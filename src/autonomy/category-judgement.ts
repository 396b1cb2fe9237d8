/**
 * A mailbox category's record read and judged, the one way the verdict, the automatic send and
 * the status pages see it: people's live decisions, then (only when the policy names replay runs)
 * the replay's pairs up to the cap the live record's size allows. Reads, never writes.
 */
import { judgeRecord, type CategoryRecord, type MailboxAutonomy, type RecordJudgement } from './autonomy-policy';
import { countedRuns, replayAllowance, type ReplayEvidence } from './replay-evidence';
import type { AutonomyFigures, AutonomyStore } from './autonomy.port';

export interface CategoryJudgement {
  record: CategoryRecord;
  /** The named replay's part, read only when the policy lets a replay count. */
  replay: ReplayEvidence | null;
  judged: RecordJudgement;
}

/**
 * A category's record read and judged: the live decisions, and the named replay's pairs up to
 * the cap the live record allows (so a replay is read only after the live record's size is known).
 */
export async function judgeCategory(
  store: Pick<AutonomyStore, 'record' | 'replayRecord'>,
  mailboxId: string,
  category: string,
  bars: Pick<MailboxAutonomy, 'minReviewed' | 'minUnchangedShare' | 'recordSize' | 'countReplay'>,
): Promise<CategoryJudgement> {
  const record = await store.record(mailboxId, category, bars.recordSize);
  const counting = bars.countReplay;
  const replay = counting ? await store.replayRecord(mailboxId, category, counting.runs, replayAllowance(record.reviewed, counting)) : null;
  return { record, replay, judged: judgeRecord(record, bars, replay) };
}

/** The figures kept with a verdict: live counts, the judged share and bound, the replay part when one counts. */
export function figuresOf(
  category: string,
  j: CategoryJudgement,
  bars: Pick<MailboxAutonomy, 'minReviewed' | 'minUnchangedShare'>,
): AutonomyFigures {
  return {
    category,
    ...j.record,
    share: j.judged.share,
    lower: j.judged.lower,
    minReviewed: bars.minReviewed,
    minShare: bars.minUnchangedShare,
    ...(j.replay ? { replay: { runs: countedRuns(j.replay), reviewed: j.replay.reviewed, unchanged: j.replay.unchanged } } : {}),
  };
}
