/**
 * Headers every reply we send carries besides From, To, Subject, Message-ID and the thread's
 * In-Reply-To/References (src/mailboxes/mail-sender.smtp.ts composes them once; the same bytes go to Sent).
 *
 * - No `Auto-Submitted`: a person read and approved every reply before it left, so it is not
 *   "automatically generated" in the sense of RFC 3834 (its absence means `no`). Marking it
 *   `auto-replied` would make the customer's ticket system or filters treat a real answer as
 *   machine mail. Mail that itself carries `Auto-Submitted` other than `no` is never drafted
 *   (src/triage/triage.ts, and TRIAGE_ALLOW cannot open it), as RFC 3834 5.2 requires.
 * - `X-Auto-Response-Suppress: OOF, AutoReply`: asks Exchange and Outlook not to answer the reply
 *   with an out-of-office or other automatic reply, which would only come back to our queue.
 */
export const REPLY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Auto-Response-Suppress': 'OOF, AutoReply',
});
