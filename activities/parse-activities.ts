import { parseRawEmail } from '../adapters/mail-parser';
import type { Priority, TriageClass } from '../lib/domain';
import { PermanentError } from '../lib/errors';
import { higher } from '../lib/priority-rules';
import { bouncedMessageIds, triage, triageMessage } from '../lib/triage';
import type { ActivityDeps } from './deps';
import { correlationId, legacyTransition, type StatusOwned } from './context';
import { emailKey } from './mailbox-of';
import { joinThread } from './thread-join';

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

export function createParseActivities(deps: Pick<ActivityDeps, 'messages' | 'audit' | 'bounces' | 'settings' | 'mailboxes'>) {
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
    async parseEmail(input: { emailId: string; priority?: Priority } & StatusOwned): Promise<ParseSummary> {
      const raw = await deps.messages.getRaw(input.emailId);
      if (!raw) throw new PermanentError(`no stored message for ${input.emailId}`, 'MESSAGE_GONE');
      const parsed = await parseRawEmail(raw, input.emailId);
      const stored = await deps.messages.getEmail(input.emailId);
      // A reply joins a known thread only if its sender took part in it, within its mailbox's team.
      const key = emailKey(deps, { mailboxId: stored?.mailboxId ?? '', mailbox: stored?.mailbox ?? null });
      parsed.threadId = await joinThread(deps, input.emailId, parsed, key.account);
      // Intake may already have raised it (sender and keyword rules): keep the more urgent one.
      if (input.priority) parsed.priority = higher(parsed.priority, input.priority);
      await deps.messages.saveParsed(input.emailId, parsed);
      const verdict = triage(triageMessage(parsed), deps.settings.triage);
      await deps.messages.saveTriage(input.emailId, verdict);
      const linked = verdict?.class === 'bounce' ? await linkBounce(input.emailId, raw, parsed) : 0;
      await legacyTransition(
        input,
        deps,
        input.emailId,
        'parsed',
        `"${parsed.subject.slice(0, 120)}" from ${parsed.from?.address ?? 'unknown sender'}`,
        {
          attachments: parsed.attachments.length,
          priority: parsed.priority,
          ...(verdict ? { triage: verdict.class, triageReason: verdict.reason } : {}),
          ...(verdict?.class === 'bounce' ? { bouncedSends: linked } : {}),
        },
      );
      return {
        priority: parsed.priority,
        hasReplyAddress: Boolean(parsed.replyTo ?? parsed.from),
        attachments: parsed.attachments.length,
        triage: verdict,
      };
    },
  };
}
