/**
 * One reply for several mails of a case. The reviewer picks the lead email (whose current draft
 * becomes the reply) and the other open mails it answers; each covered email is held for that
 * reply (no other decision lands on it) and ends as sent once the lead's reply was sent. The
 * draft-id binding still decides every race: a covered email whose draft changed is refused.
 */
export interface CaseReplyRequest {
  caseId: string;
  leadEmailId: string;
  /** The lead's current draft, as the reviewer read it. */
  leadDraftId: string;
  /** The reply as the reviewer wrote it; without it the lead draft is sent as it is. */
  body?: string;
  /** The other mails of the case this reply answers, each with the draft id the reviewer saw. */
  covers: Array<{ emailId: string; draftId: string }>;
  by: string;
}

export interface CaseReplyResult {
  accepted: boolean;
  /** What happened to each covered email (held for the reply, or why it was refused). */
  covered: Array<{ emailId: string; held: boolean; message: string }>;
  message: string;
}

export interface CaseReplies {
  answer(request: CaseReplyRequest): Promise<CaseReplyResult>;
}

/** Tells the mails a sent case reply answered (after the lead's status became sent). */
export interface CaseReplySettler {
  settle(leadEmailId: string): Promise<void>;
}
