/** Shadow evidence (table `shadow_evidence`): drafts measured against the replies people sent instead. */
import type { PairMeasures } from '../replay';

/** The replay's measures of one draft against the reply a person sent, and what they are of. */
export interface ShadowEvidenceRow extends PairMeasures {
  emailId: string;
  mailboxId: string;
  /** `shadow` or `live` when measured. */
  mailboxMode: string;
  draftId: string;
  replyMessageId: string;
  category: string;
  language: string;
  knowledgeGap: boolean;
  repliedAt: Date;
}

/** A row with the customer mail's subject and text, for the report's knowledge gaps. */
export interface ShadowReportRow extends ShadowEvidenceRow {
  subject: string;
  body: string;
}

export interface ShadowEvidenceFilter {
  mailboxId?: string;
  /** Only mail of mailboxes measured in this mode. */
  mode?: string;
  /** Only evidence recorded since. */
  since?: Date;
}

export interface ShadowEvidenceStore {
  /** Upsert by email: a retried stand-down measures once. */
  save(row: ShadowEvidenceRow): Promise<void>;
  rows(filter: ShadowEvidenceFilter): Promise<ShadowReportRow[]>;
  /** Per email that stood down: seconds from the person's reply (its Date header) to the withdrawal. */
  standDownLatencies(filter: ShadowEvidenceFilter): Promise<number[]>;
}
