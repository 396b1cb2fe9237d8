/**
 * Which waiting mails an outside reply answers. Pure: the store finds the candidates, this
 * decides. Headers first (In-Reply-To, then References); where a client broke them, the same
 * customer, a reply prefix on the same subject and a time after the mail.
 */
import { MATCHED_BY, type MatchedBy, type OutsideReply, type WaitingMail } from './outside-replies.port';

/** Reply and forward prefixes of the common clients and languages (Re, AW, SV, Antw, VS, Fwd, WG, TR), with counters like `Re[2]:`. */
const PREFIX = /^\s*(?:re|aw|sv|antw|antwort|vs|r|fw|fwd|wg|tr|rif)\s*(?:(?:\[\d+\]|\(\d+\))\s*)?:\s*/i;
const REPLY_PREFIX = /^\s*(?:re|aw|sv|antw|antwort|vs|r|rif)\s*(?:(?:\[\d+\]|\(\d+\))\s*)?:/i;

/** The subject without its reply and forward prefixes, lower-case, spaces collapsed. */
export function baseSubject(subject: string): string {
  let s = subject;
  for (let i = 0; i < 10 && PREFIX.test(s); i++) s = s.replace(PREFIX, '');
  return s.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Whether the subject says it is a reply (`Re:`, `AW:` …), not a new message or a forward. */
export function isReplySubject(subject: string): boolean {
  return REPLY_PREFIX.test(subject);
}

/** The Message-IDs a reply names, In-Reply-To first. */
export function namedIds(reply: Pick<OutsideReply, 'inReplyTo' | 'references'>): string[] {
  return [...new Set([reply.inReplyTo, ...reply.references].filter((id): id is string => Boolean(id)))];
}

/**
 * The mails this reply answers. By headers: the mail its In-Reply-To names, and mails of the
 * same customer its References name (one reply answers the customer's open mails of the thread;
 * a mail of someone else in the thread is not answered by writing to the customer). By subject
 * only when no header named a waiting mail: the customer among the recipients, a reply prefix,
 * the same subject, written after the mail.
 */
export function answeredMails(
  reply: OutsideReply,
  byHeaders: readonly WaitingMail[],
  bySender: readonly WaitingMail[],
): Array<{ emailId: string; matchedBy: MatchedBy }> {
  const recipients = new Set(reply.to.map((a) => a.toLowerCase()));
  const writesTo = (m: WaitingMail) => m.customer.some((a) => recipients.has(a));
  const out = new Map<string, MatchedBy>();
  for (const m of byHeaders) {
    if (m.messageId && m.messageId === reply.inReplyTo) out.set(m.emailId, MATCHED_BY.inReplyTo);
    else if (m.messageId && reply.references.includes(m.messageId) && writesTo(m) && !out.has(m.emailId))
      out.set(m.emailId, MATCHED_BY.references);
  }
  if (out.size === 0 && isReplySubject(reply.subject)) {
    const subject = baseSubject(reply.subject);
    for (const m of bySender) {
      if (subject !== '' && baseSubject(m.subject) === subject && writesTo(m) && m.receivedAt.getTime() <= reply.sentAt.getTime())
        out.set(m.emailId, MATCHED_BY.subject);
    }
  }
  return [...out].map(([emailId, matchedBy]) => ({ emailId, matchedBy }));
}
