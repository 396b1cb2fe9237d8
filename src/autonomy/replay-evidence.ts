/**
 * What a replay may add to a category's record, and only when the policy names the run
 * (`countReplay` per mailbox): the named runs' would-be outcomes for pairs of the same mailbox and
 * category, each "unchanged" counted as approved unchanged and every other outcome as changed.
 * Replay results are drafts no person reviewed in operation, so they count only up to a cap tied
 * to the live record (`replayCap` times its size, at most 1): a large replay can narrow the
 * interval of a live record but never outvote it, and without live decisions it adds nothing.
 * Pure: parsing the policy fields, the cap and the words; reading the results is the store's.
 */

/** The policy's opt-in for one mailbox: which replay runs count, and how many of their pairs at most. */
export interface ReplayCounting {
  /** Replay run ids, as `email-rag replay list` prints them; the first named wins a pair two runs share. */
  runs: string[];
  /** Replay pairs counted per live reviewed draft, 0 to 1 (default 1: never more than the live record). */
  cap: number;
}

export const REPLAY_CAP_DEFAULT = 1;

/** Why a named run added nothing; it is found and usable otherwise. */
export type ReplayRunProblem = 'not_found' | 'other_mailbox' | 'unfinished';

export interface ReplayRunCheck {
  runId: string;
  problem: ReplayRunProblem | null;
}

/** The replay part of a category's record, as read for one judgement. */
export interface ReplayEvidence {
  runs: ReplayRunCheck[];
  /** Measured pairs of the mailbox and category in the usable runs, before the cap. */
  available: number;
  /** The newest pairs counted (at most `allowed`) and how many of them would have gone out unchanged. */
  reviewed: number;
  unchanged: number;
  /** The cap for this judgement: `replayCap` times the live record's size. */
  allowed: number;
}

/** Reads the replay part of a category's record (the replay feature's adapter implements it). */
export interface ReplayEvidenceReader {
  /** The named runs checked, and the measured pairs of the mailbox and category in the usable ones, the newest `limit`. */
  replayRecord(mailboxId: string, category: string, runIds: readonly string[], limit: number): Promise<ReplayEvidence>;
}

/** How many replay pairs may count beside a live record of `liveReviewed` decisions. */
export function replayAllowance(liveReviewed: number, counting: ReplayCounting): number {
  return Math.max(0, Math.floor(liveReviewed * counting.cap + 1e-9));
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * `countReplay` (a run id or a list of them) and `replayCap` of a mailbox entry; undefined when
 * replay does not count (the default). Whether a run exists can only be known when it is judged.
 */
export function parseReplayCounting(raw: Record<string, unknown>, where: string, problems: string[]): ReplayCounting | undefined {
  const { countReplay, replayCap } = raw;
  if (countReplay === undefined || countReplay === null || countReplay === false) {
    if (replayCap !== undefined) problems.push(`${where}.replayCap needs countReplay (the replay runs that count)`);
    return undefined;
  }
  const list: unknown[] = Array.isArray(countReplay) ? countReplay : [countReplay];
  const runs: string[] = [];
  list.forEach((x, i) => {
    if (typeof x === 'string' && RUN_ID.test(x.trim())) runs.push(x.trim());
    else problems.push(`${where}.countReplay[${i}] must be a replay run id (as \`email-rag replay list\` shows), got ${JSON.stringify(x)}`);
  });
  if (list.length === 0) problems.push(`${where}.countReplay must name at least one replay run (leave it out to count none)`);
  let cap: number = REPLAY_CAP_DEFAULT;
  if (replayCap !== undefined) {
    if (typeof replayCap !== 'number' || !Number.isFinite(replayCap) || replayCap < 0 || replayCap > 1)
      problems.push(`${where}.replayCap must be a number from 0 to 1 (replay pairs per live decision), got ${JSON.stringify(replayCap)}`);
    else cap = replayCap;
  }
  return { runs: [...new Set(runs)], cap };
}

const PROBLEM_WORDS: Record<ReplayRunProblem, string> = {
  not_found: 'not found (never made, or deleted): counts nothing',
  other_mailbox: 'is a replay of another mailbox: counts nothing',
  unfinished: 'has not finished: counts nothing yet',
};

/** The runs whose results were read, for the figures and the reasons. */
export const countedRuns = (e: ReplayEvidence): string[] => e.runs.filter((r) => r.problem === null).map((r) => r.runId);

/** What the replay added, in words: "replay 20250605-1a2b3c4d: 38 of 40 unchanged (40 of 120 pairs, cap 40)". */
export function describeReplay(e: ReplayEvidence): string {
  const runs = countedRuns(e);
  const parts: string[] = [];
  if (runs.length > 0) {
    const capped = e.available > e.reviewed ? ` (${e.reviewed} of ${e.available} pairs, cap ${e.allowed})` : '';
    parts.push(`replay ${runs.join(', ')}: ${e.unchanged} of ${e.reviewed} unchanged${capped}`);
  }
  for (const r of e.runs) if (r.problem) parts.push(`replay run ${r.runId} ${PROBLEM_WORDS[r.problem]}`);
  return parts.join('; ');
}
