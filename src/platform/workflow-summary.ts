/**
 * What the Temporal Web UI and `temporal workflow describe` show for an email workflow: a one-line
 * summary (subject and sender), details (mailbox, priority, thread) and the current details line.
 * The Web UI renders all three as Markdown (raw HTML included), and subject and sender come from
 * whoever wrote the mail, so every value is cut to one line and shown literally: no links, images
 * or markup a sender could plant. Free of I/O: the workflow imports it.
 */
import type { Priority } from '../platform/domain';

/** Static summary and details given to a workflow at start. */
export interface WorkflowDisplay {
  summary: string;
  details: string;
}

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

/**
 * Temporal refuses a start whose summary payload exceeds 400 bytes (`limit.userMetadataSummarySize`),
 * counting the serialised payload: JSON escapes, the encoding metadata and, with an encrypting codec,
 * its envelope. The summary's JSON stays within this, leaving the rest for metadata and a codec.
 */
export const SUMMARY_MAX_JSON_BYTES = 280;
const SUBJECT_CHARS = 90;
const SENDER_CHARS = 70;
const DETAIL_CHARS = 200;
const CURRENT_CHARS = 300;

// C0/C1 controls, bidi overrides and isolates, zero-width and line/paragraph separators: they can
// hide or reorder text on screen.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]+/g;

/** One line: invisible characters become spaces, runs of white space one space, cut with an ellipsis. */
export function oneLine(text: string, maxChars: number): string {
  const chars = [...text.replace(INVISIBLE, ' ').replace(/\s+/g, ' ').trim()];
  return chars.length <= maxChars ? chars.join('') : `${chars.slice(0, Math.max(0, maxChars - 1)).join('')}…`;
}

/**
 * Text that Markdown (CommonMark, as the Web UI renders it) shows as it is: punctuation that could
 * start markup, HTML, an entity or an autolink is backslash-escaped, so does a leading block marker.
 */
export function markdownLiteral(text: string): string {
  return (
    text
      // Emphasis, code, links and images, raw HTML and autolinks in angle brackets, strikethrough.
      .replace(/[\\`*[<~]/g, (c) => `\\${c}`)
      .replace(/&(?=#?[a-z0-9]+;)/gi, '\\&')
      // An underscore inside a word never starts emphasis (awaiting_approval stays readable).
      .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_')
      // A scheme and its colon (https://, mailto:) would become a link.
      .replace(/([a-z][a-z0-9+.-]*):(?=\S)/gi, '$1\\:')
      // The renderer's typographer makes -- a dash (and --force a different word).
      .replace(/-(?=-)/g, '-\\')
      // Block markers count only at the start: heading, quote, list.
      .replace(/^(\s*)([-+#>]|\d+[.)])/, (_m, space: string, marker: string) => `${space}${marker.slice(0, -1)}\\${marker.slice(-1)}`)
  );
}

/** A Markdown code span: shown literally in the Web UI and still copyable from the CLI. */
export function codeSpan(text: string, maxChars = DETAIL_CHARS): string {
  return `\`${oneLine(text.replace(/`/g, "'"), maxChars)}\``;
}

/** Bytes of `text` in UTF-8, without Node's Buffer (workflows import this file). */
function utf8Bytes(text: string): number {
  let n = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

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
