/**
 * The rules a person's decision must pass before the email workflow applies it. Pure and
 * deterministic: the Update validators, the same-named signals and the CLI all use them, so a
 * decision is refused with the same message wherever it comes from.
 */
import { DECISION_LIMITS, type DecisionName } from '../email.contract';
import { WAITING_KINDS } from '../email-status';
import { internalSourceIds } from '../../drafting/index.workflow';

/** What the workflow waits for, if anything; a decision must fit it. */
export type WaitingFor =
  | { kind: typeof WAITING_KINDS.approval; draftId: string; version: number }
  | { kind: typeof WAITING_KINDS.manualReview; draftId: string; version: number }
  | { kind: typeof WAITING_KINDS.sendRound; draftId: string }
  | { kind: typeof WAITING_KINDS.sendInDoubt; draftId: string; since: string }
  | { kind: typeof WAITING_KINDS.shadow; draftId: string; version: number };

export interface ApproveInput {
  /** The draft the person read; a newer (or older) draft is never approved in its place. */
  draftId: string;
  by: string;
  /** An edited reply; without it the draft is sent as it is. Required in manual_review. */
  body?: string;
}
export interface RejectInput {
  draftId: string;
  by: string;
  /** Required, unless the mail is marked as spam. */
  reason?: string;
  /** The person marks the mail as spam: rejected, nothing sent, and the spam filter learns it. */
  spam?: boolean;
}
export interface RedraftInput {
  draftId: string;
  by: string;
  reason?: string;
}
export interface ResendInput {
  by: string;
  /** Only for a send in doubt, after a person checked it was not delivered: one more attempt. */
  force?: boolean;
  /** The approved draft; required with `force` (the send in doubt a person checked). */
  draftId?: string;
}
export interface MarkSentInput {
  by: string;
  /** What the person checked (e.g. "customer confirmed receipt"). */
  note?: string;
  /** The draft whose send in doubt a person checked. */
  draftId: string;
}

/** Held for one reply of the case that the lead email sends (the draft id binds it like an approve). */
export interface CoverInput {
  draftId: string;
  by: string;
  leadEmailId: string;
}

export type DecisionInput = {
  approve: ApproveInput;
  reject: RejectInput;
  redraft: RedraftInput;
  resend: ResendInput;
  markSent: MarkSentInput;
};

/** The answer to an accepted decision. */
export interface DecisionResult {
  draftId: string;
  status: string;
  message: string;
}

export interface DecisionContext {
  waitingFor: WaitingFor | null;
  /** A decision already taken on the current draft (first one wins). */
  decided: string | null;
  status: string;
  /** False once the email may get no further draft. */
  redraftAllowed: boolean;
  /** Set once a person answered the mail outside the assistant: who, when, which message. */
  answeredElsewhere?: string | null;
}

function text(value: unknown, field: string, max: number, required: boolean): string | null {
  if (value === undefined || value === null) return required ? `"${field}" is required` : null;
  if (typeof value !== 'string') return `"${field}" must be a string`;
  if (value.trim() === '') return `"${field}" must not be empty`;
  if (value.length > max) return `"${field}" has ${value.length} characters; at most ${max} are accepted (nothing is cut)`;
  return null;
}

function shapeRefusal(decision: DecisionName, input: Record<string, unknown>): string | null {
  const by = text(input.by, 'by', DECISION_LIMITS.byChars, true);
  if (by) return by;
  switch (decision) {
    case 'approve':
      return text(input.draftId, 'draftId', 400, true) ?? text(input.body, 'body', DECISION_LIMITS.bodyChars, false);
    case 'reject':
      if (input.spam !== undefined && typeof input.spam !== 'boolean') return '"spam" must be true or false';
      return text(input.draftId, 'draftId', 400, true) ?? text(input.reason, 'reason', DECISION_LIMITS.reasonChars, input.spam !== true);
    case 'redraft':
      return text(input.draftId, 'draftId', 400, true) ?? text(input.reason, 'reason', DECISION_LIMITS.reasonChars, false);
    case 'resend':
      if (input.force !== undefined && typeof input.force !== 'boolean') return '"force" must be true or false';
      // Settling a send in doubt is about one message a person checked: never a blind batch.
      return text(input.draftId, 'draftId', 400, input.force === true);
    case 'markSent':
      return text(input.note, 'note', DECISION_LIMITS.noteChars, false) ?? text(input.draftId, 'draftId', 400, true);
  }
}

function waitingText(context: Pick<DecisionContext, 'waitingFor' | 'status'>): string {
  if (!context.waitingFor) return `the email is ${context.status} and waits for no decision`;
  switch (context.waitingFor.kind) {
    case WAITING_KINDS.approval:
      return `it waits for approval of draft ${context.waitingFor.draftId} (version ${context.waitingFor.version})`;
    case WAITING_KINDS.manualReview:
      return `it waits for a person to write the reply (manual_review, draft ${context.waitingFor.draftId})`;
    case WAITING_KINDS.sendRound:
      return `the approved draft ${context.waitingFor.draftId} waits for its next send round`;
    case WAITING_KINDS.sendInDoubt:
      return `the send of draft ${context.waitingFor.draftId} is in doubt since ${context.waitingFor.since}`;
    case WAITING_KINDS.shadow:
      return `its mailbox is in shadow mode: draft ${context.waitingFor.draftId} waits for the team's own reply and is never sent`;
  }
}

/** Whether a decision's input marks the mail as spam (a reject with `spam: true`). */
export function marksSpam(decision: DecisionName | 'cover', input: unknown): boolean {
  return decision === 'reject' && typeof input === 'object' && input !== null && (input as Record<string, unknown>).spam === true;
}

/** What a decision is called in its refusals and in the decision that came first. */
export function decisionLabel(decision: DecisionName, input: unknown): string {
  return marksSpam(decision, input) ? 'mark as spam' : decision;
}

/** Why `decision` with `raw` cannot be applied now, or null when it can. */
export function decisionRefusal(decision: DecisionName, raw: unknown, context: DecisionContext): string | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return `${decision} needs one JSON object as input`;
  const input = raw as Record<string, unknown>;
  const shape = shapeRefusal(decision, input);
  if (shape) return `${decisionLabel(decision, input)} refused: ${shape}`;
  // Nothing of ours may follow a person's own answer: the customer would get a second one.
  if (context.answeredElsewhere)
    return `${decisionLabel(decision, input)} refused: ${context.answeredElsewhere}; the draft was withdrawn and nothing is sent`;
  const where = waitingText(context);
  // Shadow mode decides nothing: switching the mailbox to live is the one way to let drafts be sent.
  if (context.waitingFor?.kind === WAITING_KINDS.shadow) return `${decisionLabel(decision, input)} refused: ${where}`;
  const draftId = typeof input.draftId === 'string' ? input.draftId : undefined;
  if (decision === 'approve' || decision === 'reject' || decision === 'redraft') {
    const label = decisionLabel(decision, input);
    if (context.decided) return `${label} refused: ${context.decided} came first`;
    if (
      !context.waitingFor ||
      (context.waitingFor.kind !== WAITING_KINDS.approval && context.waitingFor.kind !== WAITING_KINDS.manualReview)
    )
      return `${label} refused: ${where}`;
    if (draftId !== context.waitingFor.draftId) {
      return `${label} refused: draft ${draftId} is not the current one; ${where}. Review that draft and decide on its id`;
    }
    if (decision === 'approve' && context.waitingFor.kind === WAITING_KINDS.manualReview && input.body === undefined) {
      return 'approve refused: there is no usable draft (manual_review); approve with "body" holding the reply you wrote';
    }
    if (decision === 'redraft' && !context.redraftAllowed) {
      return 'redraft refused: this email reached its limit of drafts; approve with a "body" you wrote, or reject';
    }
    return null;
  }
  if (draftId !== undefined && context.waitingFor && draftId !== context.waitingFor.draftId)
    return `${decision} refused: draft ${draftId} is not the current one; ${where}`;
  if (decision === 'markSent') {
    if (context.waitingFor?.kind !== WAITING_KINDS.sendInDoubt)
      return `markSent refused: only a send in doubt can be marked sent; ${where}`;
    return null;
  }
  // resend
  if (input.force === true) {
    if (context.waitingFor?.kind !== WAITING_KINDS.sendInDoubt)
      return `resend with force refused: force applies only to a send in doubt; ${where}`;
    return null;
  }
  if (context.waitingFor?.kind === WAITING_KINDS.sendInDoubt) {
    return `resend refused: the send of draft ${context.waitingFor.draftId} is in doubt; check the SMTP log for it, then resend with "force": true (not delivered) or markSent (delivered)`;
  }
  if (context.waitingFor?.kind !== WAITING_KINDS.sendRound) return `resend refused: ${where}`;
  return null;
}

/**
 * Why an approval's text cannot be sent: it names an internal source id. The approved text is sent
 * as it stands, so it is refused, not cleaned: the person takes the id out and approves what the
 * customer will read. Only the Update validator asks (a validator is not replayed); the legacy
 * signal keeps the rules its histories were written under, and the send step refuses such a text
 * before the hand-over all the same (INTERNAL_SOURCE_IDS).
 */
export function approvedTextRefusal(decision: DecisionName, raw: unknown): string | null {
  if (decision !== 'approve' || typeof raw !== 'object' || raw === null) return null;
  const body = (raw as Record<string, unknown>).body;
  const ids = typeof body === 'string' ? internalSourceIds(body) : [];
  if (ids.length === 0) return null;
  return `approve refused: "body" names internal source ids (${ids.slice(0, 3).join(', ')}); the customer must not read them: take them out (the review page lists each sentence's sources) and approve again`;
}

/** Why this email cannot be held for a case reply now, or null: the rules of an approve, without a body. */
export function coverRefusal(raw: unknown, context: DecisionContext): string | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'coverByCaseReply needs one JSON object as input';
  const input = raw as Record<string, unknown>;
  const shape =
    text(input.by, 'by', DECISION_LIMITS.byChars, true) ??
    text(input.draftId, 'draftId', 400, true) ??
    text(input.leadEmailId, 'leadEmailId', 400, true);
  if (shape) return `coverByCaseReply refused: ${shape}`;
  if (context.answeredElsewhere) return `coverByCaseReply refused: ${context.answeredElsewhere}`;
  if (context.decided) return `coverByCaseReply refused: ${context.decided} came first`;
  if (!context.waitingFor || (context.waitingFor.kind !== WAITING_KINDS.approval && context.waitingFor.kind !== WAITING_KINDS.manualReview))
    return `coverByCaseReply refused: ${waitingText(context)}`;
  if (input.draftId !== context.waitingFor.draftId)
    return `coverByCaseReply refused: draft ${String(input.draftId)} is not the current one; ${waitingText(context)}`;
  return null;
}

/** The line a refused decision gives once a person answered outside the assistant. */
export function answeredElsewhereText(note: { by: string; at: string; messageId: string }): string {
  return `the mail was answered outside the assistant by ${note.by || 'an unknown sender'} at ${note.at} (${note.messageId})`;
}
