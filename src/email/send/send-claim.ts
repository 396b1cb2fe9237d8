import { FAILURE_TYPES } from '../../platform/contract';
import { SEND_STATUS } from '../email-status';
import { PermanentError, TransientError } from '../../platform/errors';
import type { FoundMessage } from '../../mailboxes';
import { PHASES_BEFORE_FINAL_DOT, type SendAttemptRecord, type SendLedger } from '../email-stores.port';
import { type AuditLog } from '../../platform/store.port';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';

/** An operator's one-shot go-ahead for a send in doubt; `key` makes it count once. */
export interface SendForce {
  by: string;
  key: string;
}

export type Claim =
  | { kind: 'claimed'; forced: boolean; tookOver: boolean }
  | { kind: 'already_sent'; row: SendAttemptRecord }
  /** The send was in doubt and the mailbox check found the reply in the Sent folder: now `sent`. */
  | { kind: 'found_in_sent'; found: FoundMessage };

export interface ClaimContext {
  correlationId: string;
  emailId: string;
  draftId: string;
  messageId: string;
  /** This attempt's fencing token. */
  token: string;
  force?: SendForce;
  /** The row as just read (e.g. by `ensure`): the first round decides on it instead of reading it again. */
  row?: SendAttemptRecord;
  /**
   * For a mailbox whose provider files sent mail: looks a send in doubt up in the Sent folder
   * (once per call) before refusing it; returns where it was found, having recorded it sent.
   */
  resolveDoubt?: (row: SendAttemptRecord) => Promise<FoundMessage | null>;
}

/** A `force` from a signal or the CLI, checked: anything but `{ by, key }` with text is refused. */
export function checkForce(force: unknown): SendForce | undefined {
  if (force === undefined || force === null) return undefined;
  const f = force as { by?: unknown; key?: unknown };
  if (typeof f !== 'object' || typeof f.by !== 'string' || typeof f.key !== 'string' || !f.by.trim() || !f.key.trim()) {
    throw new PermanentError('force must name who decided and a one-time key: { "by": "…", "key": "…" }', FAILURE_TYPES.badForce);
  }
  return { by: f.by.trim().slice(0, 191), key: f.key.trim().slice(0, 191) };
}

export function beforeFinalDot(row: SendAttemptRecord): boolean {
  return row.phase === null || PHASES_BEFORE_FINAL_DOT.includes(row.phase);
}

/** What the operator must do about a send in doubt; the same words wherever it is reported. */
export function inDoubtAdvice(emailId: string): string {
  return (
    `check the SMTP server log for the Message-ID, then either \`email-rag resend ${emailId} --force --by NAME\` ` +
    `if it was not delivered, or \`email-rag mark-sent ${emailId} --by NAME\` if the customer got it`
  );
}

/**
 * Takes the send row for this attempt, or finds it needs none. Every step is a compare-and-swap;
 * when another attempt moved the row in between, the row is read again and the decision repeated.
 * A row in doubt is refused (SEND_IN_DOUBT) unless an unused force key releases it.
 */
export async function claimSend(deps: { sends: SendLedger; audit: AuditLog }, ctx: ClaimContext): Promise<Claim> {
  const { correlationId: cid, emailId, draftId, force } = ctx;
  let ignoredNoted = false;
  let looked = false;
  const forceIgnored = async (row: SendAttemptRecord) => {
    if (!force || ignoredNoted) return;
    ignoredNoted = true;
    await deps.audit.record({
      emailId,
      correlationId: cid,
      eventType: EMAIL_AUDIT_EVENTS.forceIgnored,
      actor: force.by,
      message: `force by ${force.by} ignored: the send of ${row.messageId} is ${row.status}, not in doubt`,
      details: { draftId, forceKey: force.key, status: row.status },
      eventKey: `${cid}:${EMAIL_AUDIT_EVENTS.forceIgnored}:${draftId}:${force.key}`,
    });
  };
  for (let round = 0; round < 6; round++) {
    const row = round === 0 && ctx.row ? ctx.row : await deps.sends.get(draftId);
    if (!row) throw new TransientError(`the send row of ${draftId} is missing`, FAILURE_TYPES.sendRowMissing);
    switch (row.status) {
      case SEND_STATUS.sent:
      case SEND_STATUS.bounced:
        await forceIgnored(row);
        return { kind: 'already_sent', row };
      case SEND_STATUS.pending:
      case SEND_STATUS.failed:
        await forceIgnored(row);
        if (await deps.sends.claim(draftId, ctx.token)) return { kind: 'claimed', forced: false, tookOver: false };
        continue;
      case SEND_STATUS.sending:
        if (beforeFinalDot(row)) {
          // The attempt holding it stopped (or will be fenced off) before the final dot: nothing
          // was handed over, so taking it over cannot duplicate the message.
          await forceIgnored(row);
          if (await deps.sends.takeOver(draftId, row.attemptToken, ctx.token)) return { kind: 'claimed', forced: false, tookOver: true };
          continue;
        }
        await deps.sends.markInDoubt(
          draftId,
          row.attemptToken,
          `attempt ${row.attempts} stopped after the final dot of DATA, before the server answered`,
        );
        continue;
      case SEND_STATUS.inDoubt:
        // Before refusing, and before a forced send: a copy the provider filed settles the doubt.
        if (ctx.resolveDoubt && !looked) {
          looked = true;
          const found = await ctx.resolveDoubt(row);
          if (found) {
            await forceIgnored({ ...row, status: SEND_STATUS.sent });
            return { kind: 'found_in_sent', found };
          }
          // Read again: a person may have decided while the lookup ran.
          continue;
        }
        if (force && row.forceKey !== force.key) {
          if (await deps.sends.claimForced(draftId, ctx.token, force.by, force.key)) {
            await deps.audit.record({
              emailId,
              correlationId: cid,
              eventType: EMAIL_AUDIT_EVENTS.sendForced,
              errorClass: 'unclear',
              actor: force.by,
              message: `${force.by} forced sending ${row.messageId} again although an earlier attempt may have delivered it`,
              details: { draftId, forceKey: force.key, attempts: row.attempts },
              eventKey: `${cid}:${EMAIL_AUDIT_EVENTS.sendForced}:${draftId}:${force.key}`,
            });
            return { kind: 'claimed', forced: true, tookOver: false };
          }
          continue;
        }
        return refuseInDoubt(deps, ctx, row);
    }
  }
  throw new TransientError(`the send row of ${draftId} kept changing under this attempt`, FAILURE_TYPES.sendContended);
}

/** Audits and throws SEND_IN_DOUBT: never resent automatically, a person decides. */
export async function refuseInDoubt(deps: { audit: AuditLog }, ctx: ClaimContext, row: SendAttemptRecord): Promise<never> {
  const usedKey = ctx.force && row.forceKey === ctx.force.key;
  await deps.audit.record({
    emailId: ctx.emailId,
    correlationId: ctx.correlationId,
    eventType: EMAIL_AUDIT_EVENTS.sendInDoubt,
    errorClass: 'unclear',
    actor: ctx.force?.by ?? null,
    message:
      `the send of ${row.messageId} is in doubt (attempt ${row.attempts}${row.lastError ? `: ${row.lastError}` : ''}); ` +
      `not sent again automatically${usedKey ? `; force key "${ctx.force!.key}" was already used` : ''}`,
    details: { draftId: ctx.draftId, attempts: row.attempts, phase: row.phase, forcedBy: row.forcedBy },
    eventKey: `${ctx.correlationId}:${EMAIL_AUDIT_EVENTS.sendInDoubt}:${ctx.draftId}:${row.attempts}${usedKey ? `:${ctx.force!.key}` : ''}`,
  });
  throw new PermanentError(
    `the send of ${row.messageId} may have been delivered already (${row.lastError ?? 'interrupted hand-over'})` +
      `${usedKey ? `; force key "${ctx.force!.key}" was already used once` : ''}: ${inDoubtAdvice(ctx.emailId)}`,
    FAILURE_TYPES.sendInDoubt,
  );
}
