/**
 * What an email's workflow starts with (its input, where its raw message comes from) and what a
 * person's decision on its draft carries. Free of I/O: the workflow imports it.
 */
import type { Priority } from '../triage';

/**
 * Where the raw message of an email comes from. `mailboxId` names the registry entry it came in
 * through (docs/mailboxes.md); inputs written before there was a registry lack it and mean
 * the `default` mailbox.
 */
export type EmailSource = ImapSource | { kind: 'stored'; mailboxId?: string };

/** A message in an IMAP folder of a mailbox: its UIDVALIDITY and UID. */
export interface ImapSource {
  kind: 'imap';
  mailboxId?: string;
  /** The IMAP folder (absent in runs started before 1.5: they name it `mailbox`). */
  folder?: string;
  /** The IMAP folder under its 1.4 name: still written beside `folder` until 1.6, so a 1.4 worker can run a 1.5 start. */
  mailbox: string;
  uidValidity: number;
  uid: number;
}

/** The IMAP folder of a message, whichever release started its run. */
export function folderOf(source: ImapSource): string {
  return source.folder ?? source.mailbox;
}

export interface EmailWorkflowInput {
  /** Equals the workflow id: the business identity of the email. */
  emailId: string;
  source: EmailSource;
  /** Imported as history: indexed for retrieval, never answered. */
  historyOnly?: boolean;
  /** Priority decided at intake (headers and rules); aging raises it while the email waits. */
  priority?: Priority;
  /** Drafts one email may get (people's redrafts and thread follow-ups) before a person must write it. */
  maxDrafts?: number;
  /** A person pulled an `ignored` email back into the pipeline: triage is skipped, a draft is made. */
  answerRequestedBy?: string;
  /**
   * LLM_TIMEOUT_MS of whoever started the run: the draft step's start-to-close timeout follows it
   * (llmStepTimeout). Absent in runs started before it existed: the profile's fixed timeout.
   */
  llmTimeoutMs?: number;
  /**
   * `queue`: the intake runs as an activity on the mail-io task queue, where a fleet-wide rate
   * (WORKER_RATE_MAIL_IO_PER_SECOND) applies. Absent: it runs in the run's first workflow task.
   */
  intake?: 'queue';
}

/** A person's decision on a draft, as the workflow passes it on. */
export type Decision =
  | { kind: 'approve'; by: string; body?: string }
  /** `spam`: the person marked the mail as spam; it is rejected and the spam filter learns it. */
  | { kind: 'reject'; by: string; reason: string; spam?: true };

/** Workflow id of a message in an IMAP mailbox: stable across polls and restarts. */
export function imapEmailId(account: string, mailbox: string, uidValidity: number, uid: number): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._@-]+/g, '_');
  return `email-${safe(account)}-${safe(mailbox)}-${uidValidity}-${uid}`;
}
