import { FAILURE_TYPES } from '../../platform/contract';
import { folderOf, type EmailWorkflowInput } from '../email-input';
import { PermanentError, TooLargeError } from '../../platform/errors';
import type { EmailDeps } from '../email-deps';
import { correlationId } from '../../platform/activity-context';
import { mailboxOf } from '../../mailboxes';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';

/**
 * What the fetch step hands to the parse step inside one activity (`ingestEmail`), so that the
 * parse step need not read back what was just stored. Never returned to a workflow.
 */
export interface FetchedMessage {
  raw: Buffer;
  /** Where it came in (IMAP only; a stored message's row says it). */
  mailboxId?: string;
  mailbox?: string | null;
}

type FetchDeps = Pick<EmailDeps, 'mailboxes' | 'messages' | 'audit' | 'settings'>;

/** The fetch step: as the `fetchEmail` activity, or the first step of `ingestEmail`. */
export function createFetchStep(deps: FetchDeps) {
  /** Mail over the limit leaves a visible row and one audit entry, then ends the step for good. */
  async function refuseOversized(input: EmailWorkflowInput, err: TooLargeError): Promise<never> {
    const { source, emailId } = input;
    const cid = correlationId();
    if (source.kind === 'imap') {
      await deps.messages.saveOversized({
        emailId,
        source: 'imap',
        mailboxId: mailboxOf(deps, source.mailboxId).entry.id,
        mailbox: folderOf(source),
        uidValidity: source.uidValidity,
        uid: source.uid,
        size: err.size,
        subject: err.known.subject,
        from: err.known.from,
        historyOnly: input.historyOnly ?? false,
      });
    }
    await deps.audit.record({
      emailId,
      correlationId: cid,
      eventType: EMAIL_AUDIT_EVENTS.tooLarge,
      errorClass: 'permanent',
      message: err.message,
      details: { size: err.size, limit: err.limit },
      eventKey: `${cid}:${EMAIL_AUDIT_EVENTS.tooLarge}`,
    });
    throw err;
  }

  return {
    /** The fetch step with the raw message for the next step of the same activity. */
    async fetchMessage(input: EmailWorkflowInput): Promise<{ size: number; message: FetchedMessage }> {
      const { source, emailId } = input;
      if (source.kind === 'stored') {
        const raw = await deps.messages.getRaw(emailId);
        if (!raw) {
          // An imported file over the limit was recorded, not stored (email-rag ingest).
          const stub = await deps.messages.getEmail(emailId);
          if (stub?.statusReason === 'too_large') {
            const limit = deps.settings.maxMessageBytes;
            return refuseOversized(
              input,
              new TooLargeError(
                `message has ${stub.rawSize} bytes, above the limit of ${limit} (MAX_MESSAGE_BYTES); not stored`,
                stub.rawSize,
                limit,
              ),
            );
          }
          throw new PermanentError(`no stored message for ${emailId}`, FAILURE_TYPES.messageGone);
        }
        return { size: raw.length, message: { raw } };
      }
      // Refused before anything is stored when the registry no longer has the mailbox.
      const served = mailboxOf(deps, source.mailboxId);
      let raw = await deps.messages.getRaw(emailId);
      if (!raw) {
        try {
          raw = await served.imap.fetchRaw({
            mailbox: folderOf(source),
            uidValidity: source.uidValidity,
            uid: source.uid,
            maxBytes: deps.settings.maxMessageBytes,
          });
        } catch (err) {
          if (err instanceof TooLargeError) return refuseOversized(input, err);
          throw err;
        }
      }
      await deps.messages.saveRaw({
        emailId,
        source: 'imap',
        mailboxId: served.entry.id,
        mailbox: folderOf(source),
        uidValidity: source.uidValidity,
        uid: source.uid,
        raw,
        historyOnly: input.historyOnly ?? false,
      });
      return { size: raw.length, message: { raw, mailboxId: served.entry.id, mailbox: folderOf(source) } };
    },
  };
}

/**
 * Downloads the raw message once, over the IMAP account of the mailbox it came in through, and
 * stores it with that mailbox's id; the workflow only ever sees its id.
 */
export function createFetchActivities(deps: FetchDeps, step = createFetchStep(deps)) {
  return {
    async fetchEmail(input: EmailWorkflowInput): Promise<{ size: number }> {
      return { size: (await step.fetchMessage(input)).size };
    },
  };
}
