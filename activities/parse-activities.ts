import { FAILURE_TYPES } from '../lib/contract';
import { parseRawEmail } from '../adapters/mail-parser';
import type { Priority, TriageClass } from '../lib/domain';
import { PermanentError } from '../lib/errors';
import { higher } from '../lib/priority-rules';
import { bouncedMessageIds, triage, triageMessage } from '../lib/triage';
import { MAX_STORED_TEXT_CHARS } from '../adapters/mariadb/limits';
import type { EmailRecord } from '../ports/store';
import type { ActivityDeps } from './deps';
import { correlationId } from './context';
import type { FetchedMessage } from './fetch-activities';
import { emailKey } from './mailbox-of';
import { joinThread } from './thread-join';

/** What the index step needs of a parsed email: handed on inside `ingestEmail`, else read from MariaDB. */
export type IndexSource = Pick<EmailRecord, 'id' | 'threadId' | 'mailboxId' | 'mailbox' | 'from' | 'to' | 'subject' | 'text' | 'date'>;

export interface ParseSummary {
  priority: Priority;
  hasReplyAddress: boolean;
  attachments: number;
  /**
   * Intake triage: why this email deserves no reply (bounce, auto-reply, list, …), or null when
   * it gets a draft. Stored on the email; the workflow decides what status follows from it.
   */
  triage: { class: TriageClass; reason: string } | null;
}

type ParseDeps = Pick<ActivityDeps, 'messages' | 'audit' | 'bounces' | 'settings' | 'mailboxes'>;
type ParseInput = { emailId: string; priority?: Priority };

/** The parse step: as the `parseEmail` activity, or the second step of `ingestEmail`. */
export function createParseStep(deps: ParseDeps) {
  /** A bounce of one of our replies marks that send `bounced`, audited on both emails. */
  async function linkBounce(emailId: string, raw: Buffer, parsed: { inReplyTo: string | null; references: string[] }): Promise<number> {
    const cid = correlationId();
    const sends = await deps.bounces.markBounced(bouncedMessageIds(raw.toString('latin1'), parsed));
    for (const s of sends) {
      const details = { draftId: s.draftId, messageId: s.messageId, bounceEmailId: emailId };
      await deps.audit.record({
        emailId: s.emailId,
        correlationId: s.emailId,
        eventType: 'send_bounced',
        message: `the reply ${s.messageId} bounced: delivery status notification ${emailId}`,
        details,
        eventKey: `${emailId}:send_bounced:${s.draftId}:original`,
      });
      await deps.audit.record({
        emailId,
        correlationId: cid,
        eventType: 'send_bounced',
        message: `bounce of our reply ${s.messageId} to ${s.emailId}`,
        details,
        eventKey: `${emailId}:send_bounced:${s.draftId}:bounce`,
      });
    }
    return sends.length;
  }

  return {
    /** `fetched`: the fetch step's message in the same activity; without it the stored one is read. */
    async parseMessage(input: ParseInput & { fetched?: FetchedMessage }): Promise<{ summary: ParseSummary; email: IndexSource }> {
      const raw = input.fetched?.raw ?? (await deps.messages.getRaw(input.emailId));
      if (!raw) throw new PermanentError(`no stored message for ${input.emailId}`, FAILURE_TYPES.messageGone);
      const parsed = await parseRawEmail(raw, input.emailId);
      const where =
        input.fetched?.mailboxId !== undefined
          ? { mailboxId: input.fetched.mailboxId, mailbox: input.fetched.mailbox ?? null }
          : await deps.messages
              .getEmail(input.emailId)
              .then((stored) => ({ mailboxId: stored?.mailboxId ?? '', mailbox: stored?.mailbox ?? null }));
      // A reply joins a known thread only if its sender took part in it, within its mailbox's team.
      const key = emailKey(deps, where);
      parsed.threadId = await joinThread(deps, input.emailId, parsed, key.account);
      // Intake may already have raised it (sender and keyword rules): keep the more urgent one.
      if (input.priority) parsed.priority = higher(parsed.priority, input.priority);
      const verdict = triage(triageMessage(parsed), deps.settings.triage);
      await deps.messages.saveParsed(input.emailId, parsed, { account: key.account, triage: verdict });
      if (verdict?.class === 'bounce') await linkBounce(input.emailId, raw, parsed);
      const summary = {
        priority: parsed.priority,
        hasReplyAddress: Boolean(parsed.replyTo ?? parsed.from),
        attachments: parsed.attachments.length,
        triage: verdict,
      };
      // As the index step would read it back: the stored text is cut at the same length.
      const email = {
        ...where,
        id: input.emailId,
        threadId: parsed.threadId,
        from: parsed.from,
        to: parsed.to,
        subject: parsed.subject,
        text: parsed.text.slice(0, MAX_STORED_TEXT_CHARS),
        date: parsed.date,
      };
      return { summary, email };
    },
  };
}

export function createParseActivities(deps: ParseDeps, step = createParseStep(deps)) {
  return {
    async parseEmail(input: ParseInput): Promise<ParseSummary> {
      return (await step.parseMessage(input)).summary;
    },
  };
}
