/**
 * A case's status words (table `cases`), and the email statuses that settle a mail of a case.
 */
import { STATUS } from '../email/index.workflow';

/**
 * A case's status (table `cases`): `open` while a mail of the correspondent waits for our answer,
 * `waiting_for_customer` after we answered everything (its clock is paused), `closed` when the
 * correspondent stayed quiet for the case window or nothing was left to answer.
 */
export const CASE_STATUS = { open: 'open', waitingForCustomer: 'waiting_for_customer', closed: 'closed' } as const;

export type CaseStatus = (typeof CASE_STATUS)[keyof typeof CASE_STATUS];

export const CASE_STATUSES: readonly CaseStatus[] = Object.freeze(Object.values(CASE_STATUS));

/** An email in these statuses no longer waits for an answer from us: it does not keep its case open. */
export const CASE_SETTLED_STATUSES = Object.freeze([STATUS.sent, STATUS.rejected, STATUS.ignored, STATUS.answeredElsewhere] as const);
