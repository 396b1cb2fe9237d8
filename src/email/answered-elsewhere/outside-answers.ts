/**
 * Noticing that a person answered a waiting mail beside the assistant. The store is the truth
 * (the draft and send steps ask it before they act); the signal only wakes a workflow that waits.
 */
import { createHash } from 'node:crypto';
import { correlationId } from '../../platform/activity-context';
import { log } from '@temporalio/activity';
import { StandDownError, errorMessage } from '../../platform/errors';
import { FAILURE_TYPES } from '../../platform/contract';
import type { AuditLog } from '../../platform/store.port';
import type { AnsweredElsewhereNote, WorkflowSignals } from '../workflow-starter.port';
import { answeredElsewhereText } from '../decisions/decision-rules.workflow';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';
import { answeredMails, namedIds } from './outside-reply-match';
import { FOUND_VIA, MATCHED_BY, type OutsideAnswer, type OutsideReply, type OutsideReplyStore } from './outside-replies.port';
import type { ParsedEmail } from '../email-stores.port';

/** The reply text kept for the review page and the shadow measures. */
export const MAX_REPLY_CHARS = 100_000;

/** A parsed message as an outside reply (a Sent folder's message, or a team address's copy in the inbox). */
export function outsideReply(
  mailboxId: string,
  parsed: ParsedEmail,
  found: Pick<OutsideReply, 'foundVia' | 'folder' | 'uidValidity' | 'uid'>,
): OutsideReply {
  return {
    mailboxId,
    messageId: parsed.messageId ?? '',
    ...found,
    from: parsed.from ?? { name: '', address: '' },
    to: [...parsed.to, ...parsed.cc].map((a) => a.address.toLowerCase()),
    subject: parsed.subject,
    inReplyTo: parsed.inReplyTo,
    references: parsed.references,
    text: parsed.text.slice(0, MAX_REPLY_CHARS),
    sentAt: parsed.date ?? new Date(),
  };
}

/** A team address's copy of its reply, as it reached the inbox. */
export function teamCopy(mailboxId: string, parsed: ParsedEmail): OutsideReply {
  return outsideReply(mailboxId, parsed, { foundVia: FOUND_VIA.teamCopy });
}

export interface OutsideAnswerDeps {
  outsideReplies?: OutsideReplyStore;
  audit: AuditLog;
  signals: WorkflowSignals;
}

/** Who answered, when, and with which message: what the signal carries and the refusals name. */
export function answeredNote(a: Pick<OutsideAnswer, 'reply'>): AnsweredElsewhereNote {
  return { messageId: a.reply.messageId, by: a.reply.from.address, at: a.reply.sentAt.toISOString() };
}

/** One line a person reads: the same wording as a refused decision's. */
export function answeredText(a: Pick<OutsideAnswer, 'reply'>): string {
  return answeredElsewhereText(answeredNote(a));
}

/**
 * Considers one message a person sent (from Sent, or a team address's copy): the waiting mails it
 * answers are tied to it, audited once each, and their workflows told. Our own replies (their
 * Message-ID is in the send ledger) and replies to mail the assistant never saw change nothing.
 */
export async function considerOutsideReply(
  deps: OutsideAnswerDeps,
  reply: OutsideReply,
  opts: { signal: 'must' | 'best effort' } = { signal: 'must' },
): Promise<string[]> {
  const store = deps.outsideReplies;
  if (!store || !reply.messageId) return [];
  if ((await store.oursAmong([reply.messageId])).has(reply.messageId)) return [];
  const byHeaders = await store.waitingByMessageId(reply.mailboxId, namedIds(reply));
  const bySender = byHeaders.length > 0 ? [] : await store.waitingFrom(reply.mailboxId, reply.to, reply.sentAt);
  const answers = answeredMails(reply, byHeaders, bySender);
  if (answers.length === 0) return [];
  const tied = await store.record(reply, answers);
  await tellAnswered(
    deps,
    reply,
    answers.filter((a) => tied.includes(a.emailId)),
  );
  for (const a of answers) {
    const told = deps.signals.answeredElsewhere(a.emailId, answeredNote({ reply }));
    // The Sent folder's scan lets a failed signal fail the look: its watermark stays, and the next
    // poll considers the message (and signals) again. A team copy is parsed once: there the signal
    // is best effort, and the draft and send steps' own look at the store stops the reply.
    if (opts.signal === 'must') await told;
    else
      await told.catch((err: unknown) => log.warn('answeredElsewhere signal not taken', { emailId: a.emailId, error: errorMessage(err) }));
  }
  return answers.map((a) => a.emailId);
}

async function tellAnswered(deps: OutsideAnswerDeps, reply: OutsideReply, answers: Array<{ emailId: string; matchedBy: string }>) {
  const key = createHash('sha256').update(reply.messageId).digest('hex').slice(0, 32);
  for (const a of answers) {
    await deps.audit.record({
      emailId: a.emailId,
      correlationId: a.emailId,
      eventType: EMAIL_AUDIT_EVENTS.outsideReplySeen,
      errorClass: null,
      actor: reply.from.address || null,
      message: `${answeredText({ reply })}; found ${reply.foundVia === 'sent_folder' ? `in ${reply.folder ?? 'the Sent folder'}` : 'as a team address’s copy'}, tied by ${a.matchedBy}`,
      details: { messageId: reply.messageId, foundVia: reply.foundVia, matchedBy: a.matchedBy, cid: correlationId() },
      eventKey: `${a.emailId}:${EMAIL_AUDIT_EVENTS.outsideReplySeen}:${key}`,
    });
  }
}

/**
 * The outside answer of a mail, or null. A stored reply that names this mail and was tied to
 * another one before this mail was parsed (its References name both) is tied to it here too.
 */
export async function outsideAnswerOf(
  deps: Pick<OutsideAnswerDeps, 'outsideReplies'>,
  email: { id: string; mailboxId: string; messageId: string | null },
  opts: { late: boolean } = { late: true },
): Promise<OutsideAnswer | null> {
  const store = deps.outsideReplies;
  if (!store) return null;
  const answer = await store.answerOf(email.id);
  if (answer || !email.messageId || !opts.late) return answer;
  const late = await store.repliesNaming(email.mailboxId, email.messageId);
  let tied = 0;
  // Every stored reply passed oursAmong when it was recorded.
  for (const reply of late) {
    const by = reply.inReplyTo === email.messageId ? MATCHED_BY.inReplyTo : MATCHED_BY.references;
    tied += (await store.record(reply, [{ emailId: email.id, matchedBy: by }])).length;
  }
  return tied > 0 ? store.answerOf(email.id) : null;
}

/** Asked by the draft step before it writes: a mail answered outside the assistant gets no draft (ANSWERED_ELSEWHERE). */
export async function refuseIfAnsweredElsewhere(
  deps: Pick<OutsideAnswerDeps, 'outsideReplies'>,
  email: { id: string; mailboxId: string; messageId: string | null },
): Promise<void> {
  const answer = await outsideAnswerOf(deps, email);
  if (answer) throw new StandDownError(answeredText(answer), FAILURE_TYPES.answeredElsewhere);
}
