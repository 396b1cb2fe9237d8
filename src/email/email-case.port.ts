/**
 * What an email's steps ask of its case: the cases feature implements it (src/cases/), so the
 * email feature names no part of cases and cases may build on the email's records and stores.
 * Each method does nothing while cases are off.
 */
import type { EmailStatus } from './email-status';
import type { DraftContextItem } from '../drafting';
import type { EmailRecord } from './email-stores.port';

export interface EmailCase {
  /**
   * The stored mail joins its correspondent's case (the index step, before the index is written);
   * the case's lead is asked for a new draft unless it is one of `alreadyTold`.
   */
  join(email: EmailRecord, alreadyTold: string[]): Promise<void>;
  /** The case's other open mails, as context for this email's draft (none without a case). */
  context(email: Pick<EmailRecord, 'id' | 'caseId'>): Promise<DraftContextItem[]>;
  /** After the email's status was recorded: the case routes, judges, settles and plans its clock. */
  afterStatus(emailId: string, status: EmailStatus): Promise<void>;
}
