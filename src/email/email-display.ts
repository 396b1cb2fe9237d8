/**
 * What the Temporal Web UI shows for an email's workflow: its summary (subject and sender), its
 * details (mailbox, priority, thread) and its current details line, each made safe by the helpers
 * of src/platform/workflow-summary.ts. Free of I/O: the workflow imports it.
 */
import type { Priority } from '../triage';
import {
  DETAIL_CHARS,
  SUMMARY_MAX_JSON_BYTES,
  codeSpan,
  markdownLiteral,
  oneLine,
  type WorkflowDisplay,
  utf8Bytes,
} from '../platform/workflow-summary';

/** What is known about an email before it is parsed (IMAP envelope, or the parsed file). */
export interface EmailFacts {
  subject: string | null;
  fromName?: string | null;
  fromAddress?: string | null;
  priority: Priority;
  /** IMAP folder name, or `file` for an imported file. */
  mailbox: string;
  /** The registry id of the mailbox it came in through (docs/mailboxes.md). */
  mailboxId?: string;
  uid?: number;
  /** The imported file's name. */
  file?: string;
  messageId?: string | null;
  inReplyTo?: string | null;
  /** Set when the thread is known already (an email pulled back for a reply). */
  threadId?: string | null;
}

const SUBJECT_CHARS = 90;

const SENDER_CHARS = 70;

const CURRENT_CHARS = 300;

/** `Name (address)`, the name alone when it is the address, or a placeholder. */
export function senderLine(name: string | null | undefined, address: string | null | undefined): string {
  const n = oneLine(name ?? '', SENDER_CHARS);
  const a = oneLine(address ?? '', SENDER_CHARS);
  if (n && a && n.toLowerCase() !== a.toLowerCase()) return oneLine(`${n} (${a})`, SENDER_CHARS);
  return n || a || '(unknown sender)';
}

/** `Subject — Sender`, shortened so its payload fits Temporal's summary limit. */
export function emailSummary(facts: Pick<EmailFacts, 'subject' | 'fromName' | 'fromAddress'>): string {
  let subjectChars = SUBJECT_CHARS;
  let senderChars = SENDER_CHARS;
  for (;;) {
    const subject = oneLine(facts.subject ?? '', subjectChars) || '(no subject)';
    const sender = oneLine(senderLine(facts.fromName, facts.fromAddress), senderChars);
    const summary = `${markdownLiteral(subject)} — ${markdownLiteral(sender)}`;
    if (utf8Bytes(JSON.stringify(summary)) <= SUMMARY_MAX_JSON_BYTES || subjectChars <= 8) return summary;
    subjectChars = Math.floor(subjectChars * 0.8);
    senderChars = Math.max(8, Math.floor(senderChars * 0.8));
  }
}

/** Mailbox, priority, sender and thread, one Markdown line each. */
export function emailDetails(facts: EmailFacts): string {
  const value = (text: string) => markdownLiteral(oneLine(text, DETAIL_CHARS));
  const folder =
    facts.mailbox === 'file'
      ? `imported file${facts.file ? ` ${facts.file}` : ''}`
      : `${facts.mailbox}${facts.uid !== undefined ? ` (UID ${facts.uid})` : ''}`;
  const where = facts.mailboxId ? `${facts.mailboxId}: ${folder}` : folder;
  // The thread is decided at parse time (only participants join one); before that, what the mail claims.
  const thread = facts.threadId
    ? codeSpan(facts.threadId)
    : facts.inReplyTo
      ? `reply to ${codeSpan(facts.inReplyTo)}`
      : 'new conversation (no In-Reply-To)';
  return [
    `**Mailbox:** ${value(where)}`,
    `**Priority at intake:** ${value(facts.priority)}`,
    `**From:** ${value(senderLine(facts.fromName, facts.fromAddress))}`,
    `**Thread:** ${thread}`,
    ...(facts.messageId ? [`**Message-ID:** ${codeSpan(facts.messageId)}`] : []),
  ].join('\n');
}

export function emailDisplay(facts: EmailFacts): WorkflowDisplay {
  return { summary: emailSummary(facts), details: emailDetails(facts) };
}

/**
 * The workflow's current details: its status and, in one line, what it waits for or why it stopped.
 * While a draft waits for approval the line names the draft id a decision must carry.
 */
export function currentDetailsLine(status: string, reason: string, waitingDraftId?: string): string {
  const line = markdownLiteral(oneLine(`${status}: ${reason}`, CURRENT_CHARS));
  return waitingDraftId ? `${line} — decide on draftId ${codeSpan(waitingDraftId, 400)}` : line;
}
