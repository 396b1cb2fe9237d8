import { STATUS } from '../email-status';
import { FAILURE_TYPES } from '../../platform/contract';
import { PermanentError, errorMessage } from '../../platform/errors';
import type { EmailDeps } from '../email-deps';
import { correlationId } from '../../platform/activity-context';
import { transition } from '../status-transition';
import { emailKey } from '../../mailboxes';
import type { IndexSource } from './parse.activities';
import { readAttachmentTexts } from '../../attachments';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';

type IndexDeps = Pick<
  EmailDeps,
  'messages' | 'audit' | 'index' | 'signals' | 'mailboxes' | 'knowledge' | 'emailCase' | 'attachments' | 'attachmentText'
>;

/**
 * Passages one re-index sync run embeds that have no vector of the current model (indexed before
 * vectors, or by another model): some seconds of embedder time, well inside the activity's timeout.
 */
export const VECTOR_BACKFILL_PER_RUN = 500;

/**
 * Writes the email's retrieval entries under its mailbox's isolation key: its text and the text
 * of its attachments (read here once; a re-index takes what was read).
 */
async function writeIndex(deps: IndexDeps, email: IndexSource): Promise<void> {
  const key = emailKey(deps, email);
  // A mail that came without files has none stored: no lookups for them (most mail).
  const attachments = email.attachments?.length === 0 ? [] : await readAttachmentTexts(deps, email.id);
  await deps.index.index({
    emailId: email.id,
    threadId: email.threadId,
    account: key.account,
    mailbox: key.mailbox,
    direction: 'in',
    fromAddress: email.from?.address ?? '',
    fromName: email.from?.name ?? '',
    toAddresses: email.to.map((t) => t.address),
    subject: email.subject,
    text: email.text,
    date: email.date,
    ...(attachments.length > 0 ? { attachments } : {}),
  });
  await deps.messages.setIndexState(email.id, 'complete');
}

async function storedEmail(deps: IndexDeps, emailId: string) {
  const email = await deps.messages.getEmail(emailId);
  if (!email) throw new PermanentError(`email ${emailId} is not stored`, FAILURE_TYPES.messageGone);
  return email;
}

/** The index step: as the `indexEmail` activity, or the last step of `ingestEmail`. */
export function createIndexStep(deps: IndexDeps) {
  return {
    /** `email`: the parse step's result in the same activity; without it the stored email is read. */
    async indexMessage(input: { emailId: string; email?: IndexSource }): Promise<{ index: string }> {
      const stored = input.email ? null : await storedEmail(deps, input.emailId);
      const email = input.email ?? (stored as IndexSource);
      // Drafts of the thread waiting for a person: read once, told once (by the case or below).
      const waitingInThread = await deps.messages.waitingInThread(email.threadId, email.id);
      // The case first: it lives in MariaDB, so a vector or graph store that is down (a degraded
      // index step) does not keep the mail out of its case.
      if (deps.emailCase) await deps.emailCase.join(stored ?? (await storedEmail(deps, email.id)), waitingInThread);
      await writeIndex(deps, email);
      // A draft waiting in the same thread was written without this message: it is stale now,
      // and a new one is drafted with the newer context (after this one is indexed, so it is found).
      // Only a genuine follow-up is in the thread: parsing let the email join it only if its
      // sender took part (thread-join.ts); anyone else started a thread of their own.
      for (const waiting of waitingInThread) {
        if (!(await deps.signals.requestRedraft(waiting, 'new-message-in-thread'))) continue;
        await deps.audit.record({
          emailId: waiting,
          correlationId: waiting,
          eventType: EMAIL_AUDIT_EVENTS.draftStale,
          message: `a newer message of the thread arrived (${email.id}); a new draft was requested`,
          eventKey: `${waiting}:${EMAIL_AUDIT_EVENTS.draftStale}:${email.id}`,
        });
      }
      return { index: deps.index.name };
    },
  };
}

export function createIndexActivities(deps: IndexDeps, step = createIndexStep(deps)) {
  /** Changed knowledge files are re-indexed, removed ones removed; a failure waits for the next run. */
  const syncKnowledge = async (cid: string): Promise<void> => {
    if (!deps.knowledge) return;
    try {
      const r = await deps.knowledge.sync();
      if (!r || r.added.length + r.updated.length + r.removed.length === 0) return;
      await deps.audit.record({
        emailId: null,
        correlationId: cid,
        eventType: EMAIL_AUDIT_EVENTS.knowledgeSynced,
        message: `knowledge folder: ${r.added.length} added, ${r.updated.length} updated, ${r.removed.length} removed`,
        details: { added: r.added, updated: r.updated, removed: r.removed },
      });
    } catch (err) {
      await deps.audit.record({
        emailId: null,
        correlationId: cid,
        eventType: EMAIL_AUDIT_EVENTS.knowledgeSyncFailed,
        errorClass: 'dependency',
        message: `knowledge folder not (fully) indexed yet: ${errorMessage(err)}`,
      });
    }
  };
  /** Vectors for passages stored without one, a bounded batch per run; audited like re-indexed emails. */
  const backfillVectors = async (cid: string): Promise<number> => {
    if (!deps.index.backfillVectors) return 0;
    try {
      const r = await deps.index.backfillVectors(VECTOR_BACKFILL_PER_RUN);
      const knowledge = r.sources.filter((s) => s.startsWith('knowledge:'));
      for (const emailId of r.sources.filter((s) => !s.startsWith('knowledge:'))) {
        await deps.audit.record({
          emailId,
          correlationId: cid,
          eventType: EMAIL_AUDIT_EVENTS.reindexed,
          message: `vectors added in ${deps.index.name}`,
        });
      }
      if (knowledge.length > 0) {
        await deps.audit.record({
          emailId: null,
          correlationId: cid,
          eventType: EMAIL_AUDIT_EVENTS.reindexed,
          message: `vectors added for ${knowledge.length} knowledge file(s) in ${deps.index.name}`,
          details: { sources: knowledge },
        });
      }
      return r.passages;
    } catch (err) {
      await deps.audit.record({
        emailId: null,
        correlationId: cid,
        eventType: EMAIL_AUDIT_EVENTS.reindexFailed,
        errorClass: 'dependency',
        message: `re-index sync could not add vectors yet: ${errorMessage(err)}`,
      });
      return 0;
    }
  };
  return {
    async indexEmail(input: { emailId: string }): Promise<{ index: string }> {
      return step.indexMessage(input);
    },

    /**
     * The re-index sync (docs/queue-model.md): completes the index entries of emails whose index step was
     * degraded. Their business status has usually moved on (drafted, sent, …) and is kept; one
     * still `partially_indexed` becomes `indexed`. A failure leaves the email for the next run.
     * Then the knowledge folder, then vectors for passages stored without one (`vectors`: how many).
     */
    async reindexPartial(input: { limit: number }): Promise<{ checked: number; completed: number; failed: number; vectors?: number }> {
      const ids = await deps.messages.idsNeedingReindex(input.limit);
      const cid = correlationId();
      let completed = 0;
      for (const emailId of ids) {
        try {
          const email = await storedEmail(deps, emailId);
          await writeIndex(deps, email);
          completed += 1;
          await deps.audit.record({
            emailId,
            correlationId: cid,
            eventType: EMAIL_AUDIT_EVENTS.reindexed,
            message: `index entries completed in ${deps.index.name}`,
          });
          if (email.status === STATUS.partiallyIndexed) await transition(deps, emailId, STATUS.indexed, 'completed by the re-index sync');
        } catch (err) {
          await deps.audit.record({
            emailId,
            correlationId: cid,
            eventType: EMAIL_AUDIT_EVENTS.reindexFailed,
            errorClass: 'dependency',
            message: `re-index sync could not complete the index yet: ${errorMessage(err)}`,
          });
        }
      }
      await syncKnowledge(cid);
      const vectors = await backfillVectors(cid);
      return { checked: ids.length, completed, failed: ids.length - completed, ...(vectors > 0 ? { vectors } : {}) };
    },
  };
}
