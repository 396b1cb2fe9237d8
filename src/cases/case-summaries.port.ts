import type { CaseSummaryMail, SummaryKind } from '../drafting';

/** A case as its handover summary needs it: the mails it holds now and how many the stored summary covers. */
export interface CaseForSummary {
  id: string;
  mailboxId: string;
  /** Mails linked to the case now (within its account and mailbox). */
  emailCount: number;
  /** How many mails the stored summary covers (0: none yet). */
  summaryEmails: number;
  /** The mails, oldest first; of a very long case the oldest and the newest (see the adapter). */
  mails: CaseSummaryMail[];
}

export interface NewCaseSummary {
  text: string;
  kind: SummaryKind;
  /** How many mails it covers: it replaces only a summary that covers fewer. */
  emails: number;
  /** The case_events row that records it. */
  event: { message: string; details: Record<string, unknown>; eventKey: string };
}

/** Where a case's handover summary is read from and written to. */
export interface CaseSummaryStore {
  forSummary(caseId: string): Promise<CaseForSummary | null>;
  /** How many mails the case holds and its stored summary covers, without the mails (null: no such case). */
  summaryCounts(caseId: string): Promise<Pick<CaseForSummary, 'emailCount' | 'summaryEmails'> | null>;
  /** Writes the summary and its history row together; false when one covering as many mails is stored already. */
  saveSummary(caseId: string, summary: NewCaseSummary): Promise<boolean>;
}
