import { FAILURE_TYPES } from '../../platform/contract';
import { detectContentType, ATTACHMENT_EVENTS } from '../../attachments';
import { parseRawEmail, type ParsedMessage } from './mail-parser';
import {
  TRIAGE_HELD_FOR_PERSON,
  type TriageClass,
  type Priority,
  TRIAGE_ALERT_EVENTS,
  TRIAGE_AUDIT_EVENTS,
  higher,
  bouncedMessageIds,
  triageDecision,
  triageMessage,
  type TriageMessage,
  type AskedSpamScore,
  type TriageSettings,
} from '../../triage';
import { PermanentError, errorMessage } from '../../platform/errors';
import { toCrlf } from './line-endings';
import { ownMailboxAddresses, emailKey } from '../../mailboxes';
import { MAX_STORED_TEXT_CHARS } from '../../platform/limits.mariadb';
import type { ParseSummary } from '../email-activities';
import type { EmailRecord } from '../email-stores.port';
import type { EmailDeps } from '../email-deps';
import { correlationId } from '../../platform/activity-context';
import type { FetchedMessage } from './fetch.activities';
import { joinThread } from './thread-join';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';
import { considerOutsideReply, teamCopy } from '../answered-elsewhere/outside-answers';
import { teachSpamFilter } from './spam-learning';

/** What the index step needs of a parsed email: handed on inside `ingestEmail`, else read from MariaDB. */
export type IndexSource = Pick<EmailRecord, 'id' | 'threadId' | 'mailboxId' | 'mailbox' | 'from' | 'to' | 'subject' | 'text' | 'date'> &
  Partial<Pick<EmailRecord, 'attachments'>>;

/** What the index step is told of a held email: it is not indexed (its text is no context for replies). */
export const HELD_INDEX = 'no index: held for a person';

type ParseDeps = Pick<
  EmailDeps,
  | 'messages'
  | 'audit'
  | 'bounces'
  | 'settings'
  | 'mailboxes'
  | 'attachments'
  | 'spamScorer'
  | 'spamLearner'
  | 'knownSenders'
  | 'signals'
  | 'outsideReplies'
>;
/** `answerRequestedBy`: a person pulled the email back (a release of held spam teaches the filter ham). */
type ParseInput = { emailId: string; priority?: Priority; answerRequestedBy?: string };

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
        eventType: EMAIL_AUDIT_EVENTS.sendBounced,
        message: `the reply ${s.messageId} bounced: delivery status notification ${emailId}`,
        details,
        eventKey: `${emailId}:${EMAIL_AUDIT_EVENTS.sendBounced}:${s.draftId}:original`,
      });
      await deps.audit.record({
        emailId,
        correlationId: cid,
        eventType: EMAIL_AUDIT_EVENTS.sendBounced,
        message: `bounce of our reply ${s.messageId} to ${s.emailId}`,
        details,
        eventKey: `${emailId}:${EMAIL_AUDIT_EVENTS.sendBounced}:${s.draftId}:bounce`,
      });
    }
    return sends.length;
  }

  /**
   * An abuse complaint (RFC 5965) about our mail: an audit row an alert counts, naming the
   * Message-IDs the report quotes (a reply of ours, when it is about one).
   */
  async function auditHeld(
    emailId: string,
    raw: Buffer,
    parsed: { inReplyTo: string | null; references: string[] },
    verdict: { class: TriageClass; reason: string },
  ) {
    const reported = bouncedMessageIds(raw.toString('latin1'), parsed).slice(0, 10);
    await deps.audit.record({
      emailId,
      correlationId: correlationId(),
      eventType: TRIAGE_ALERT_EVENTS.feedbackReport,
      errorClass: 'unclear',
      message: `abuse complaint about our mail (${verdict.reason}); it waits for a person${reported.length ? `: reports ${reported.join(' ')}` : ''}`,
      details: { triageClass: verdict.class, reportedMessageIds: reported },
      eventKey: `${emailId}:${TRIAGE_ALERT_EVENTS.feedbackReport}`,
    });
  }

  /** The triage settings with the enabled mailboxes of the registry (read each time: the file may change). */
  function settings(): TriageSettings {
    const mailboxes = deps.mailboxes
      .list()
      .filter((e) => e.enabled)
      .map((e) => ({ id: e.id, addresses: ownMailboxAddresses([e]) }));
    return { ...deps.settings.triage, mailboxes };
  }

  /**
   * Every attachment with its bytes and the type its content says. Their sum stays within
   * MAX_MESSAGE_BYTES (decoded parts of a nested message could otherwise count twice); what
   * would pass it is not stored, and an audit row names it.
   */
  async function saveAttachments(emailId: string, files: ParsedMessage['files']): Promise<void> {
    if (!deps.attachments) return;
    let total = 0;
    for (const file of files) {
      total += file.content.length;
      if (total > deps.settings.maxMessageBytes) {
        await deps.audit.record({
          emailId,
          correlationId: correlationId(),
          eventType: ATTACHMENT_EVENTS.notStored,
          errorClass: 'permanent',
          message: `attachment ${file.partIndex + 1} (${file.filename ?? 'unnamed'}, ${file.content.length} bytes) not stored: the attachments pass MAX_MESSAGE_BYTES=${deps.settings.maxMessageBytes}`,
          details: { partIndex: file.partIndex },
          eventKey: `${emailId}:${ATTACHMENT_EVENTS.notStored}:${file.partIndex}`,
        });
        continue;
      }
      await deps.attachments.save(emailId, { ...file, detectedType: await detectContentType(file.content) });
    }
  }

  /**
   * The score of the spam filter intake asks (TRIAGE_SPAMD), or undefined: none configured, the
   * message too large to scan, or the filter not answering. That last one is audited once per
   * email and the message is triaged without it: a filter that is down must not stop the mail.
   */
  async function askSpamFilter(emailId: string, raw: Buffer): Promise<AskedSpamScore | undefined> {
    const scorer = deps.spamScorer;
    if (!scorer) return undefined;
    try {
      const scored = await scorer.score(raw);
      return scored ? { score: scored.score, rules: scored.rules, by: scorer.describe } : undefined;
    } catch (err) {
      await deps.audit.record({
        emailId,
        correlationId: correlationId(),
        eventType: TRIAGE_AUDIT_EVENTS.spamFilterUnavailable,
        errorClass: 'dependency',
        message: `spam filter not asked, triaged without it: ${errorMessage(err)}`,
        details: { filter: scorer.describe },
        eventKey: `${emailId}:${TRIAGE_AUDIT_EVENTS.spamFilterUnavailable}`,
      });
      return undefined;
    }
  }

  /**
   * Triage, with the sender's standing asked only when a spam check would hold the mail: a known
   * sender is then drafted with the score as a flag (triage_class `spam` on a drafted email, a
   * draft flag, one audit row), never held by the score alone.
   */
  async function decide(emailId: string, m: TriageMessage) {
    const first = triageDecision(m, settings());
    if (first.verdict?.class !== 'spam' || !deps.knownSenders || !m.from) return { verdict: first.verdict, stored: first.verdict };
    const knownSender = await deps.knownSenders.knownSender(m.from, emailId);
    if (!knownSender) return { verdict: first.verdict, stored: first.verdict };
    const { verdict, spamFlag } = triageDecision({ ...m, knownSender }, settings());
    if (!spamFlag) return { verdict, stored: verdict };
    await deps.audit.record({
      emailId,
      correlationId: correlationId(),
      eventType: TRIAGE_AUDIT_EVENTS.spamScoreFlagged,
      errorClass: null,
      message: `spam score not held, flagged for review: ${spamFlag}`,
      details: { knownSender, verdict: verdict?.class ?? null },
      eventKey: `${emailId}:${TRIAGE_AUDIT_EVENTS.spamScoreFlagged}`,
    });
    // Stored as class spam on a mail that goes on to a draft: the draft step flags it for a person.
    return { verdict, stored: verdict ?? { class: 'spam' as const, reason: spamFlag } };
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
      const filterScore = await askSpamFilter(input.emailId, raw);
      const { verdict, stored } = await decide(input.emailId, {
        ...triageMessage(parsed, where.mailboxId || undefined),
        ...(filterScore ? { filterScore } : {}),
      });
      await deps.messages.saveParsed(input.emailId, parsed, { account: key.account, triage: stored });
      if (input.answerRequestedBy && stored?.class === 'spam')
        await teachSpamFilter(deps, input.emailId, raw, 'ham', input.answerRequestedBy);
      await saveAttachments(input.emailId, parsed.files);
      if (verdict?.class === 'bounce') await linkBounce(input.emailId, toCrlf(raw), parsed);
      const held = verdict !== null && TRIAGE_HELD_FOR_PERSON.includes(verdict.class);
      if (held) await auditHeld(input.emailId, toCrlf(raw), parsed, verdict);
      // A team address's copy of a reply (Cc/Bcc to this mailbox) may answer a mail that waits here.
      if (verdict?.class === 'own_address' && where.mailboxId)
        await considerOutsideReply(deps, teamCopy(where.mailboxId, parsed), { signal: 'best effort' });
      const summary: ParseSummary = {
        priority: parsed.priority,
        hasReplyAddress: Boolean(parsed.replyTo ?? parsed.from),
        attachments: parsed.attachments.length,
        triage: held ? null : verdict,
        ...(held ? { held: verdict } : {}),
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
        attachments: parsed.attachments,
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
