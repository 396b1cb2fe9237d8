import { FAILURE_TYPES } from '../../platform/contract';
import { DRAFT_OUTCOME, DRAFT_STATUS, classifyApproval, internalSourceIds } from '../../drafting';
import { SEND_OUTCOME, SEND_STATUS, type SendOutcome } from '../email-status';
import { type Decision } from '../email-input';
import { createHash, randomUUID } from 'node:crypto';
import { PermanentError, StandDownError, TransientError, errorMessage } from '../../platform/errors';
import { envelopeMismatch, recipientProblem } from './recipients';
import {
  HandOverInDoubtError,
  smtpPhaseOf,
  type FolderMark,
  type FoundMessage,
  type ImapConnection,
  type OutgoingMail,
  MAILBOX_MODES,
  mailboxOf,
  ourAddresses,
} from '../../mailboxes';
import type { SendAttemptRecord, SendPhase } from '../email-stores.port';
import type { EmailDeps } from '../email-deps';
import { approvalText } from './approval-text';
import { layoutReply } from './reply-layout';
import { correlationId } from '../../platform/activity-context';
import { resolveDoubtFromSent } from './send-doubt';
import { indexSentReply } from './sent-feedback';
import { checkForce, claimSend, refuseInDoubt, type Claim } from './send-claim';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';
import { answeredText, outsideAnswerOf } from '../answered-elsewhere/outside-answers';

/** How long the Sent folder's mark may hold up a send; without a mark the copy's check searches the whole folder. */
const SENT_MARK_WAIT_MS = 2_000;
/**
 * A mark read this long ago serves the next sends too: a STATUS per send cost a round trip each,
 * while an earlier mark only makes the copy's check look at the few replies filed since.
 */
const SENT_MARK_MAX_AGE_MS = 5_000;

/**
 * The Sent folder's state before the hand-over: a copy of this reply can only be there if it came
 * later (this step files its copy after the send; a server that files sent mail does so on
 * receipt), so any mark from before the hand-over will do. IMAP trouble never stops a send:
 * without a mark the check is slower, not wrong.
 */
async function sentFolderMark(mailbox: ImapConnection, folder: string): Promise<FolderMark | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, SENT_MARK_WAIT_MS, undefined);
  });
  try {
    return await Promise.race([mailbox.folderMark(folder, { maxAgeMs: SENT_MARK_MAX_AGE_MS }).catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A mail a person answered outside the assistant is not sent — unless an attempt of ours may have
 * handed it over already (sending, in doubt, sent): that stays the send ledger's to settle.
 */
async function standDownIfAnswered(
  deps: Pick<EmailDeps, 'outsideReplies' | 'sends'>,
  email: { id: string; mailboxId: string; messageId: string | null },
  draftId: string,
): Promise<void> {
  // The draft step tied any answer seen before the mail was parsed: here the store's ties suffice.
  const answer = await outsideAnswerOf(deps, email, { late: false });
  if (!answer) return;
  const row = await deps.sends.get(draftId);
  if (row && row.status !== SEND_STATUS.pending && row.status !== SEND_STATUS.failed) return;
  throw new StandDownError(answeredText(answer), FAILURE_TYPES.answeredElsewhere);
}

/**
 * The last look at the text before it goes out. An approval takes an unedited draft's text without
 * its source ids (approval-text.ts), but a draft approved before that (by an earlier release) may
 * still name one. It is not cleaned here (someone approved exactly this text): nothing is sent and
 * the email fails with INTERNAL_SOURCE_IDS for a person to answer.
 */
export function refuseInternalSourceIds(draft: { id: string; approvedBody: string | null; body: string }): void {
  const ids = internalSourceIds(draft.approvedBody ?? draft.body);
  if (ids.length === 0) return;
  throw new PermanentError(
    `draft ${draft.id} names internal source ids (${ids.slice(0, 3).join(', ')}) that the customer must not read: nothing was sent`,
    FAILURE_TYPES.internalSourceIds,
  );
}

/** The reply's Message-ID derives from the workflow and draft: the same reply always has the same id. */
export function replyMessageId(workflowId: string, draftId: string, fromAddress: string): string {
  const domain = fromAddress.split('@')[1] ?? 'localhost';
  return `<reply-${createHash('sha256').update(`${workflowId}\n${draftId}`).digest('hex').slice(0, 32)}@${domain}>`;
}

/** The approved text as it goes out: the mailbox's signature below it, once. */
export function withSignature(text: string, signature: string | undefined): string {
  // A signature written with its own "-- " separator line gets it once, not twice.
  const sig = signature
    ?.replace(/\r\n/g, '\n')
    .replace(/^\s*-- ?\n/, '')
    .trim();
  if (!sig) return text;
  const body = text.replace(/(?<!\s)\s+$/, '');
  if (body.endsWith(sig)) return text;
  // "-- " on its own line is the signature separator mail programs recognise (RFC 3676).
  return `${body}\n\n-- \n${sig}\n`;
}

/** Content-ID of the mailbox's logo in the HTML part (fixed: the bytes sent differ only by the boundaries). */
export const LOGO_CID = 'logo@signature';

/**
 * The reply's content as the mailbox wants it: plain text with the signature (`replyFormat: text`),
 * or plain and HTML from the one approved text, the signature in both, the logo embedded and the
 * customer's last message quoted beneath (src/email/send/reply-layout.ts).
 */
export function replyParts(
  entry: ReturnType<typeof mailboxOf>['entry'],
  draft: { approvedBody: string | null; body: string; language: string },
  email: { from: { name: string; address: string } | null; date: Date | null; text: string },
): Pick<OutgoingMail, 'text' | 'html' | 'inlineImages'> {
  const { signature, signatureHtml, logo, replyFormat } = entry.smtp;
  // Exactly the text a person approved: sources were taken out when the draft was written (or the approval refused).
  const body = draft.approvedBody ?? draft.body;
  if (replyFormat === 'text') return { text: withSignature(body, signature) };
  const language = draft.language === 'de' || draft.language === 'en' ? draft.language : entry.language;
  const laid = layoutReply({
    body,
    language,
    signature: { text: signature, html: signatureHtml, logoCid: logo ? LOGO_CID : undefined },
    original: email.from ? { fromName: email.from.name, fromAddress: email.from.address, date: email.date, text: email.text } : null,
  });
  return { text: laid.text, html: laid.html, ...(logo ? { inlineImages: [{ cid: LOGO_CID, path: logo }] } : {}) };
}

/**
 * Files the reply that went out in the mailbox's Sent folder, once. The reply is out: a missing
 * Sent copy is audited and never makes the step retry (and send again).
 */
async function fileSentCopy(
  deps: Pick<EmailDeps, 'audit' | 'sends'>,
  c: {
    cid: string;
    emailId: string;
    draftId: string;
    messageId: string;
    raw: Buffer;
    served: ReturnType<typeof mailboxOf>;
    sentMark?: FolderMark;
  },
): Promise<void> {
  const folder = c.served.entry.imap.sentFolder;
  try {
    await c.served.imap.appendOnce(folder, c.raw, c.messageId, c.sentMark);
    await deps.sends.markAppended(c.draftId);
  } catch (err) {
    await deps.audit.record({
      emailId: c.emailId,
      correlationId: c.cid,
      eventType: EMAIL_AUDIT_EVENTS.sentCopyFailed,
      errorClass: 'dependency',
      message: `reply sent but not stored in ${folder} of mailbox "${c.served.entry.id}": ${errorMessage(err)}`,
      eventKey: `${c.cid}:${EMAIL_AUDIT_EVENTS.sentCopyFailed}:${c.draftId}`,
    });
  }
}

export function createSendActivities(
  deps: Pick<EmailDeps, 'messages' | 'audit' | 'drafts' | 'sends' | 'mailboxes' | 'settings' | 'index' | 'outsideReplies'>,
) {
  return {
    async recordDecision(input: { emailId: string; draftId: string; decision: Decision }): Promise<void> {
      const cid = correlationId();
      const d = input.decision;
      if (d.kind === 'approve') {
        // The draft is read to measure how much the person changed and what that says about it.
        const draft = await deps.drafts.get(input.draftId);
        // Unedited, a draft stored with source notes by an earlier release is approved as the review page offers it.
        const { body, removedIds } = draft ? approvalText(draft, d.body) : { body: d.body, removedIds: [] };
        const measure = draft ? classifyApproval(draft, body) : null;
        const editDistance = measure?.editDistance ?? 0;
        await deps.drafts.approve(input.draftId, d.by, body ?? null, editDistance);
        if (measure) await deps.drafts.recordOutcome(input.draftId, measure);
        const how =
          removedIds.length > 0
            ? ` without the internal source ids its text named (${removedIds.slice(0, 3).join(', ')}), as the review page offers it`
            : d.body !== undefined
              ? ' with an edited body'
              : '';
        await deps.audit.record({
          emailId: input.emailId,
          correlationId: cid,
          eventType: EMAIL_AUDIT_EVENTS.draftApproved,
          actor: d.by,
          message: `draft approved by ${d.by}${how}`,
          details: {
            draftId: input.draftId,
            edited: body !== undefined,
            editDistance,
            ...(removedIds.length > 0 ? { sourceIdsRemoved: removedIds } : {}),
          },
          eventKey: `${cid}:decision:${input.draftId}`,
        });
      } else if (d.spam) {
        // No draft outcome: a spam mail's draft says nothing about how good the drafts are.
        await deps.drafts.reject(input.draftId, d.by, d.reason);
        await deps.audit.record({
          emailId: input.emailId,
          correlationId: cid,
          eventType: EMAIL_AUDIT_EVENTS.spamMarked,
          actor: d.by,
          message: `marked as spam by ${d.by}: draft rejected, nothing sent`,
          details: { draftId: input.draftId },
          eventKey: `${cid}:decision:${input.draftId}`,
        });
      } else {
        await deps.drafts.reject(input.draftId, d.by, d.reason);
        await deps.drafts.recordOutcome(input.draftId, { outcome: DRAFT_OUTCOME.rejected });
        await deps.audit.record({
          emailId: input.emailId,
          correlationId: cid,
          eventType: EMAIL_AUDIT_EVENTS.draftRejected,
          actor: d.by,
          message: `draft rejected by ${d.by}: ${d.reason}`,
          details: { draftId: input.draftId },
          eventKey: `${cid}:decision:${input.draftId}`,
        });
      }
    },

    /**
     * Sends an approved draft exactly once where SMTP allows it. Failures before the final dot
     * of DATA leave the row `failed` (safe to retry); a break after it leaves it `in_doubt` and
     * throws SEND_IN_DOUBT, as does every later call until an operator decides: `force` (one-shot
     * per key) sends again, confirmSentByOperator records that it arrived. A mailbox whose provider
     * files sent mail first looks the reply up in its Sent folder: found, it is `sent` by the
     * mailbox check. The email's status is the workflow's; this records the ledger row, the draft
     * and the audit trail.
     */
    async sendReply(input: {
      emailId: string;
      draftId: string;
      force?: { by: string; key: string };
    }): Promise<{ messageId: string; outcome: SendOutcome; foundInSent?: FoundMessage }> {
      const cid = correlationId();
      const force = checkForce(input.force);
      const draft = await deps.drafts.get(input.draftId);
      if (!draft) throw new PermanentError(`draft ${input.draftId} does not exist`, FAILURE_TYPES.draftGone);
      if (draft.status !== DRAFT_STATUS.approved && draft.status !== DRAFT_STATUS.sent) {
        throw new PermanentError(`draft ${input.draftId} is ${draft.status}, not approved`, FAILURE_TYPES.draftNotApproved);
      }
      const email = await deps.messages.getEmail(input.emailId);
      if (!email) throw new PermanentError(`email ${input.emailId} is not stored`, FAILURE_TYPES.messageGone);
      // The mailbox the mail came to answers it: its identity, its SMTP server, its Sent folder.
      // From the stored row, never from this worker's environment (UNKNOWN_MAILBOX if it is gone).
      const served = mailboxOf(deps, email.mailboxId);
      // Shadow mode never sends, whoever asks (a person, a case reply, earned autonomy).
      if (served.entry.mode === MAILBOX_MODES.shadow)
        throw new PermanentError(
          `mailbox "${served.entry.id}" runs in shadow mode: nothing is sent (email-rag mailboxes mode ${served.entry.id} live switches it)`,
          FAILURE_TYPES.shadowMode,
        );
      const { from } = served.entry.smtp;
      const sentFolder = served.entry.imap.sentFolder;
      // Only the address the original came from (or its Reply-To), checked: model output never picks a recipient.
      const problem = recipientProblem(draft.to.address, [...ourAddresses(deps), ...deps.settings.triage.ownAddresses]);
      if (problem) throw new PermanentError(`recipient "${draft.to.address}" refused: ${problem}`, FAILURE_TYPES.badRecipient);
      // The last look before the hand-over: a person who answered meanwhile outranks the approval.
      if (draft.status === DRAFT_STATUS.approved) await standDownIfAnswered(deps, email, draft.id);
      const token = randomUUID();
      // The first attempt of a draft (nearly every send): its row is written claimed, in one statement.
      const newMessageId = replyMessageId(cid, draft.id, from.address);
      const first =
        !force && internalSourceIds(draft.approvedBody ?? draft.body).length === 0
          ? await deps.sends.claimFirst(draft.id, email.id, newMessageId, token)
          : null;
      const row = first ?? (await deps.sends.ensure(draft.id, email.id, newMessageId));
      const messageId = row.messageId;
      // Only before any attempt could have handed it over: a reply that went out is settled as it is.
      if (row.status === SEND_STATUS.pending || row.status === SEND_STATUS.failed) refuseInternalSourceIds(draft);
      const ctx = { correlationId: cid, emailId: email.id, draftId: draft.id, messageId, token, force };
      // A provider that files what it accepts (docs/mailboxes.md) can tell whether a send in doubt arrived.
      const lookup = served.entry.smtp.providerFilesSent;
      const doubt = lookup && {
        correlationId: cid,
        emailId: email.id,
        draftId: draft.id,
        messageId,
        mailboxId: served.entry.id,
        folder: sentFolder,
        lookup,
        mailbox: served.imap,
      };
      const foundInSent = async (found: FoundMessage) => {
        await indexSentReply(deps, cid, email, draft, from.address);
        return { messageId, outcome: SEND_OUTCOME.sent, foundInSent: found };
      };
      const claim: Claim = first
        ? { kind: 'claimed', forced: false, tookOver: false }
        : await claimSend(deps, {
            ...ctx,
            row,
            ...(doubt ? { resolveDoubt: (r: SendAttemptRecord) => resolveDoubtFromSent(deps, doubt, r) } : {}),
          });
      if (claim.kind === 'already_sent') {
        await deps.drafts.markSent(draft.id);
        return { messageId, outcome: SEND_OUTCOME.alreadySent };
      }
      if (claim.kind === 'found_in_sent') return foundInSent(claim.found);
      const fenced = async (phase: SendPhase) => {
        if (!(await deps.sends.setPhase(draft.id, ctx.token, phase))) {
          throw new TransientError(
            `another attempt took over the send of ${messageId}; this one stopped before the final dot`,
            FAILURE_TYPES.sendSuperseded,
          );
        }
      };
      const references = [...email.references, ...(email.messageId ? [email.messageId] : [])];
      const sentMark = await sentFolderMark(served.imap, sentFolder);
      let reached: SendPhase = 'claimed';
      let result;
      try {
        result = await served.sender.send(
          {
            from,
            to: { name: draft.to.name, address: draft.to.address },
            subject: draft.subject,
            ...replyParts(served.entry, draft, email),
            messageId,
            inReplyTo: email.messageId ?? undefined,
            references: references.length > 0 ? references.slice(-20) : undefined,
          },
          {
            onPhase: async (phase) => {
              reached = phase;
              // Durable checkpoints only where exactly-once needs them: the claim (before connect),
              // the start of DATA and the final dot. Earlier phases stay in memory and go into the
              // row with a failure; a write per SMTP command cost a round trip each and fenced nothing.
              if (phase === 'data') await fenced(phase);
            },
            beforeData: async (seen) => {
              const mismatch = envelopeMismatch({ from: from.address, to: draft.to.address }, seen);
              if (!mismatch) return;
              await deps.audit.record({
                emailId: email.id,
                correlationId: cid,
                eventType: EMAIL_AUDIT_EVENTS.envelopeMismatch,
                errorClass: 'permanent',
                message: `send of ${messageId} stopped before the message: ${mismatch}`,
                details: { draftId: draft.id, seen },
              });
              throw new PermanentError(
                `the SMTP envelope differs from the approved recipient: ${mismatch}`,
                FAILURE_TYPES.envelopeMismatch,
              );
            },
            beforeFinalDot: async () => {
              await fenced('data_end');
              reached = 'data_end';
            },
          },
        );
      } catch (err) {
        if (err instanceof HandOverInDoubtError) {
          await deps.sends.markInDoubt(draft.id, ctx.token, errorMessage(err));
          const now = await deps.sends.get(draft.id);
          if (now?.status === SEND_STATUS.inDoubt) {
            const found = doubt ? await resolveDoubtFromSent(deps, { ...doubt, since: sentMark }, now) : null;
            if (found) return foundInSent(found);
            // Another attempt's lookup may have settled it while this one looked.
            const settled = doubt ? await deps.sends.get(draft.id) : null;
            if (settled?.status === SEND_STATUS.sent) return { messageId, outcome: SEND_OUTCOME.alreadySent };
            return refuseInDoubt(deps, ctx, now);
          }
        } else {
          await deps.sends.failed(draft.id, ctx.token, smtpPhaseOf(err) ?? reached, errorMessage(err));
        }
        throw err;
      }
      await deps.sends.succeeded(draft.id, result.envelope, result.response);
      // Neither waits for the other: the draft's status and the audit row of the send.
      await Promise.all([
        deps.drafts.markSent(draft.id),
        deps.audit.record({
          emailId: email.id,
          correlationId: cid,
          eventType: EMAIL_AUDIT_EVENTS.replySent,
          actor: claim.forced ? (force?.by ?? null) : null,
          message: `sent ${messageId} to ${result.envelope.to.join(', ')}${claim.forced ? ` (forced by ${force?.by})` : ''}`,
          details: { draftId: draft.id, messageId, envelope: result.envelope, forced: claim.forced, tookOver: claim.tookOver },
          eventKey: `${cid}:${EMAIL_AUDIT_EVENTS.replySent}:${draft.id}`,
        }),
      ]);
      // The reply's index entry (the embedder) and its Sent copy (IMAP) do not wait for each other either.
      // The provider files its own copy of what it accepted: a second one of ours would be a duplicate.
      await Promise.all([
        indexSentReply(deps, cid, email, draft, from.address),
        lookup
          ? undefined
          : fileSentCopy(deps, { cid, emailId: email.id, draftId: draft.id, messageId, raw: result.raw, served, sentMark }),
      ]);
      return { messageId, outcome: SEND_OUTCOME.sent };
    },

    /**
     * A person checked that the customer got a reply whose send is in doubt: `in_doubt → sent`,
     * with who said so. Refused (NOT_IN_DOUBT) for a send that is not in doubt.
     */
    async confirmSentByOperator(input: { emailId: string; draftId: string; by: string; note?: string }): Promise<{ messageId: string }> {
      const cid = correlationId();
      const by = input.by.trim().slice(0, 191);
      if (!by) throw new PermanentError('confirming a send needs the name of the person who checked it', FAILURE_TYPES.badActor);
      const row = await deps.sends.get(input.draftId);
      if (!row || row.emailId !== input.emailId) {
        throw new PermanentError(
          `draft ${input.draftId} of ${input.emailId} has no send attempt; nothing is in doubt`,
          FAILURE_TYPES.notInDoubt,
        );
      }
      // A retry of this same confirmation finds its own result.
      const already = row.status === SEND_STATUS.sent && row.resolvedBy === by;
      if (!already && !(await deps.sends.confirmSent(row.draftId, by, input.note?.slice(0, 2000) ?? null))) {
        const now = await deps.sends.get(row.draftId);
        throw new PermanentError(
          `the send of ${row.messageId} is ${now?.status ?? row.status}, not in doubt; nothing to confirm`,
          FAILURE_TYPES.notInDoubt,
        );
      }
      await deps.drafts.markSent(row.draftId);
      await deps.audit.record({
        emailId: input.emailId,
        correlationId: cid,
        eventType: EMAIL_AUDIT_EVENTS.sendMarkedSent,
        actor: by,
        message: `${by} confirmed that ${row.messageId} reached the customer${input.note ? `: ${input.note.slice(0, 500)}` : ''}`,
        details: { draftId: row.draftId, messageId: row.messageId },
        eventKey: `${cid}:${EMAIL_AUDIT_EVENTS.sendMarkedSent}:${row.draftId}`,
      });
      return { messageId: row.messageId };
    },

    /** The newest send row of the email: lets a reset workflow see that a send already happened. */
    async sendStateOf(input: { emailId: string }): Promise<{ draftId: string; status: string; messageId: string } | null> {
      const row = await deps.sends.latestOfEmail(input.emailId);
      return row ? { draftId: row.draftId, status: row.status, messageId: row.messageId } : null;
    },
  };
}
