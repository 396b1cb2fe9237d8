import {
  extractiveSummary,
  type CaseSummaryMail,
  type SummaryLanguage,
  CASE_SUMMARY_KINDS,
  type CaseSummaryKind,
  type Drafter,
} from '../drafting';
import { CASE_SUMMARY_EVENTS } from './cases.contract';
import { EmailRagError, errorMessage } from '../platform/errors';
import { detectLanguage } from '../platform/language';
import { activityTimeoutMs } from '../platform/activity-context';
import type { CaseSummaryStore } from './case-summaries.port';
import type { MailboxDirectory } from '../mailboxes';
import type { AuditLog } from '../platform/store.port';

export interface CaseSummaryDeps {
  /** Absent when cases are off (CASES=off): there is nothing to summarise. */
  caseSummaries?: CaseSummaryStore;
  /** Its `summarise` (an LLM is configured) writes the summary; without it the summary is extractive. */
  drafter: Drafter;
  audit: AuditLog;
  /** The case's mailbox gives the summary's language. */
  mailboxes: Pick<MailboxDirectory, 'list'>;
  /** How long the model may take (LLM_SUMMARY_TIMEOUT_MS; default SUMMARY_LLM_TIMEOUT_MS). */
  summaryTimeoutMs?: number;
}

/**
 * The model's time for a summary when no setting names one: well inside the 30 seconds a
 * bookkeeping activity has.
 */
export const SUMMARY_LLM_TIMEOUT_MS = 20_000;

/** The summary step's time beside the model call: reading the mails, writing the summary. */
export const SUMMARY_STEP_MARGIN_MS = 10_000;

/**
 * The model's time for this attempt: the setting, but never so long that the activity's own
 * start-to-close timeout ends it first. A timed-out attempt is retried without end (bookkeeping
 * profile) where a model timeout ends in the extractive fallback; case workflow runs of 1.3 and
 * turns that name no summary time (caseTurn's summaryStepMs) still run it in 30 seconds.
 */
export function summaryModelMs(settingMs: number, activityMs: number | undefined): number {
  if (activityMs === undefined) return settingMs;
  return Math.max(1_000, Math.min(settingMs, activityMs - SUMMARY_STEP_MARGIN_MS));
}

/** A case of one or two mails is read faster than its summary. */
export const MIN_MAILS_FOR_SUMMARY = 3;

export function createCaseSummaryActivities(deps: CaseSummaryDeps) {
  /** The model's summary, or the extractive one with an audit row saying why the model's is missing. */
  async function write(
    caseId: string,
    mails: CaseSummaryMail[],
    language: SummaryLanguage,
    count: number,
  ): Promise<{ text: string; kind: CaseSummaryKind; details: Record<string, unknown> }> {
    if (!deps.drafter.summarise) {
      return { text: extractiveSummary(mails, language), kind: CASE_SUMMARY_KINDS.extractive, details: {} };
    }
    try {
      const timeoutMs = summaryModelMs(deps.summaryTimeoutMs ?? SUMMARY_LLM_TIMEOUT_MS, activityTimeoutMs());
      const made = await deps.drafter.summarise(mails, language, { timeoutMs });
      return { text: made.text, kind: CASE_SUMMARY_KINDS.llm, details: { model: made.model, promptVersion: made.promptVersion } };
    } catch (err) {
      // The summary only helps a reviewer: a failing model never holds the case up, and the page says how it was made.
      const code = err instanceof EmailRagError ? err.code : null;
      await deps.audit.record({
        emailId: null,
        // The case's id is its workflow's id: the correlation id of everything about the case.
        correlationId: caseId,
        eventType: CASE_SUMMARY_EVENTS.llmFallback,
        errorClass: err instanceof EmailRagError ? err.errorClass : 'unclear',
        message: `the LLM could not summarise case ${caseId}, the summary was made from the mails' sentences: ${errorMessage(err)}`,
        details: { caseId, emails: count, code },
        eventKey: `case-summary-fallback:${caseId}:${count}`,
      });
      return { text: extractiveSummary(mails, language), kind: CASE_SUMMARY_KINDS.extractiveFallback, details: { code } };
    }
  }

  return {
    /** Whether summariseCase would write: more mails than a summary needs, and more than the stored one covers. */
    async summaryDue(input: { caseId: string }): Promise<boolean> {
      const c = (await deps.caseSummaries?.summaryCounts(input.caseId)) ?? null;
      return c !== null && c.emailCount >= MIN_MAILS_FOR_SUMMARY && c.summaryEmails < c.emailCount;
    },
    /**
     * Writes a case's handover summary when it has more than two mails and the stored one covers
     * fewer than it has now; otherwise does nothing. Safe to retry and to run twice: a summary only
     * replaces one of fewer mails, and its history row lands once per mail count.
     */
    async summariseCase(input: { caseId: string }): Promise<{ written: boolean; kind: string | null }> {
      const found = (await deps.caseSummaries?.forSummary(input.caseId)) ?? null;
      if (!found || found.emailCount < MIN_MAILS_FOR_SUMMARY || found.summaryEmails >= found.emailCount) {
        return { written: false, kind: null };
      }
      const entry = deps.mailboxes.list().find((m) => m.id === found.mailboxId);
      // A mailbox removed from the registry: the mails' own language.
      const language = entry?.language ?? detectLanguage(found.mails.map((m) => m.text.slice(0, 2_000)).join('\n'));
      const made = await write(found.id, found.mails, language, found.emailCount);
      const written = await deps.caseSummaries!.saveSummary(found.id, {
        text: made.text,
        kind: made.kind,
        emails: found.emailCount,
        event: {
          message: `summary of ${found.emailCount} mails (${made.kind})`,
          details: { kind: made.kind, emails: found.emailCount, language, ...made.details },
          eventKey: `case-summary:${found.id}:${found.emailCount}`,
        },
      });
      return { written, kind: written ? made.kind : null };
    },
  };
}
