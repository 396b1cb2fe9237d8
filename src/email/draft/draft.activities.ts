import { FAILURE_TYPES } from '../../platform/contract';
import { PermanentError } from '../../platform/errors';
import {
  readIntentSet,
  DEFAULT_INTENT_THRESHOLD,
  type IntentDetectorSettings,
  knownCategory,
  readCategoryList,
  type Category,
  UNDETERMINED_LANGUAGE,
  separateCitations,
  DRAFT_FLAGS,
} from '../../drafting';
import { replyToDiffers } from '../send/recipients';
import type { DraftRecord } from '../email-stores.port';
import type { EmailDeps } from '../email-deps';
import { correlationId } from '../../platform/activity-context';
import { draftGuidance } from './draft-guidance';
import { draftExamples, examplesWanted } from './draft-examples';
import { draftHold, type DraftHold } from './draft-hold';
import { MAILBOX_MODES, mailboxOf } from '../../mailboxes';
import { draftContext } from './draft-context';
import { injectionCheck } from './draft-injection-check';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';
import { refuseIfAnsweredElsewhere } from '../answered-elsewhere/outside-answers';
import { draftGrounding, groundingFlags, saveGrounding } from './draft-grounding';
import { type DraftView } from '../email-activities';

export { withinBudget } from './draft-context';

/** A draft of a mailbox in shadow mode: nobody is asked to approve it, and it is never sent. */
function shadowOf(deps: Pick<EmailDeps, 'mailboxes'>, email: { mailboxId: string }): { shadow?: true } {
  return mailboxOf(deps, email.mailboxId).entry.mode === MAILBOX_MODES.shadow ? { shadow: true } : {};
}

function toView(d: DraftRecord): Omit<DraftView, 'flags' | 'needsHuman'> {
  return {
    draftId: d.id,
    version: d.version,
    subject: d.subject,
    body: d.body,
    to: d.to,
    language: d.language,
    confidence: d.confidence,
    drafter: d.drafter,
    model: d.model,
  };
}

type DraftDeps = Pick<
  EmailDeps,
  | 'messages'
  | 'audit'
  | 'index'
  | 'drafter'
  | 'drafts'
  | 'mailboxes'
  | 'embedder'
  | 'emailCase'
  | 'attachments'
  | 'guidance'
  | 'draftClaims'
  | 'approvedExamples'
  | 'outsideReplies'
> & {
  settings?: Pick<EmailDeps['settings'], 'injectionGuard' | 'replyLimitPerHour' | 'categories' | 'contextChars' | 'draftExamples'>;
};

export function createDraftActivities(deps: DraftDeps) {
  let shippedGuard: IntentDetectorSettings | undefined;
  let shippedCategories: Category[] | undefined;
  // Deps built without the config's guard settings get the shipped intents at the default threshold.
  const guardSettings = (): IntentDetectorSettings =>
    deps.settings?.injectionGuard ?? (shippedGuard ??= { intents: readIntentSet(), threshold: DEFAULT_INTENT_THRESHOLD });
  /** An empty draft (the workflow's sign for "a person writes the reply"), with its audit row. */
  async function holdDraft(
    email: { id: string; subject: string },
    to: DraftView['to'],
    version: number,
    hold: DraftHold,
  ): Promise<DraftView> {
    const cid = correlationId();
    const draft = await deps.drafts.save({
      id: `${email.id}:draft:${version}`,
      emailId: email.id,
      version,
      subject: /^(re|aw):/i.test(email.subject) ? email.subject : `Re: ${email.subject}`,
      body: '',
      language: UNDETERMINED_LANGUAGE,
      confidence: 0,
      drafter: deps.drafter.name,
      model: 'none',
      promptVersion: 'held',
      contextIds: [],
      flags: [hold.flag],
      to,
    });
    await deps.audit.record({
      emailId: email.id,
      correlationId: cid,
      eventType: hold.eventType,
      errorClass: 'unclear',
      message: hold.reason,
      details: { flag: hold.flag, to: to.address },
      eventKey: `${cid}:${hold.eventType}:${version}`,
    });
    return { ...toView(draft), flags: [hold.flag], needsHuman: true, heldReason: hold.reason };
  }

  return {
    /** A reply written by a person (manual review): stored as a draft like any other. */
    async saveHumanDraft(input: { emailId: string; version: number; body: string; by: string }): Promise<DraftView> {
      const email = await deps.messages.getEmail(input.emailId);
      if (!email) throw new PermanentError(`email ${input.emailId} is not stored`, FAILURE_TYPES.messageGone);
      const to = email.replyTo ?? email.from;
      if (!to) throw new PermanentError('the email names no sender or Reply-To address to answer', FAILURE_TYPES.noReplyAddress);
      const draft = await deps.drafts.save({
        id: `${email.id}:draft:${input.version}`,
        emailId: email.id,
        version: input.version,
        subject: /^(re|aw):/i.test(email.subject) ? email.subject : `Re: ${email.subject}`,
        body: input.body,
        language: UNDETERMINED_LANGUAGE,
        confidence: 1,
        drafter: 'human',
        model: input.by,
        promptVersion: 'human',
        contextIds: [],
        flags: ['human_written'],
        to,
      });
      return { ...toView(draft), flags: draft.flags, needsHuman: false };
    },

    async draftReply(input: { emailId: string; version: number; requestedBy?: string }): Promise<DraftView> {
      const email = await deps.messages.getEmail(input.emailId);
      if (!email) throw new PermanentError(`email ${input.emailId} is not stored`, FAILURE_TYPES.messageGone);
      // A person answered it beside the assistant (perhaps before it was even parsed): no draft.
      await refuseIfAnsweredElsewhere(deps, email);
      const to = email.replyTo ?? email.from;
      if (!to) throw new PermanentError('the email names no sender or Reply-To address to answer', FAILURE_TYPES.noReplyAddress);
      const cid = correlationId();
      if (input.requestedBy) {
        await deps.audit.record({
          emailId: email.id,
          correlationId: cid,
          eventType: EMAIL_AUDIT_EVENTS.redraftRequested,
          actor: input.requestedBy,
          message: `${input.requestedBy} asked for draft ${input.version}`,
          eventKey: `${cid}:redraft:${input.version}`,
        });
      }
      // Earlier drafts can no longer be approved once a newer one exists (the first has none).
      if (input.version > 1) await deps.drafts.markStale(email.id, input.version);
      const hold = await draftHold(deps, email, to, input);
      if (hold) return { ...(await holdDraft(email, to, input.version, hold)), ...shadowOf(deps, email) };
      const at = { cid, version: input.version };
      const context = await draftContext(deps, email, to, at);
      const findings = await injectionCheck(deps, email, context, guardSettings(), at);
      const { language } = mailboxOf(deps, email.mailboxId).entry;
      const categories = deps.settings?.categories ?? (shippedCategories ??= readCategoryList());
      const { categoryHint, guidance, category } = await draftGuidance(deps, email, categories, { needCategory: examplesWanted(deps) });
      // Examples of form only: they never enter the context, so the grounding check below never counts them as support.
      const examples = await draftExamples(deps, email, category);
      const drafted = await deps.drafter.draft({
        emailId: email.id,
        from: to,
        subject: email.subject,
        text: email.text,
        context,
        language,
        categories,
        ...(categoryHint ? { categoryHint } : {}),
        ...(guidance ? { guidance } : {}),
        ...(examples.length > 0 ? { examples } : {}),
      });
      // Whatever a drafter said, only a name of the list (or unclassified) reaches rules and autonomy.
      drafted.category = knownCategory(categories, drafted.category);
      const result = findings.length > 0 ? { ...drafted, flags: [...drafted.flags, 'possible_prompt_injection'] } : drafted;
      if (replyToDiffers(email.from, email.replyTo)) result.flags = [...result.flags, 'reply_to_differs'];
      // Triage let it through (a known sender) or a person released it, but a spam score fired: a person looks.
      if (email.triageClass === 'spam') result.flags = [...result.flags, DRAFT_FLAGS.spamScore];
      // What the reviewer approves is what the customer reads: a source the drafter wrote into the
      // text is taken out here, once, and kept as a claim beside its sentence for grounding and review.
      const cited = separateCitations(result.body, [email.id, ...context.map((c) => c.sourceId)], result.claims);
      result.body = cited.body;
      result.claims = cited.claims;
      const grounding = await draftGrounding(deps, email, context, result);
      result.flags = [...result.flags, ...groundingFlags(grounding)];
      const draft = await deps.drafts.save({
        id: `${email.id}:draft:${input.version}`,
        emailId: email.id,
        version: input.version,
        subject: result.subject,
        body: result.body,
        language: result.language,
        confidence: result.confidence,
        drafter: deps.drafter.name,
        model: result.model,
        promptVersion: result.promptVersion,
        contextIds: [...new Set(context.map((c) => c.sourceId))],
        flags: result.flags,
        ...(result.category ? { category: result.category.slice(0, 100) } : {}),
        // Only mails that really were open in this case's context count as answered.
        answersEmailIds: (result.answersEmailIds ?? []).filter((id) => context.some((c) => c.openInCase && c.sourceId === id)),
        guidanceVersion: guidance?.version ?? null,
        to,
      });
      await saveGrounding(deps, draft, grounding);
      const needsHuman = draft.body.trim() === '';
      if (result.flags.length > 0) {
        await deps.audit.record({
          emailId: email.id,
          correlationId: cid,
          eventType: EMAIL_AUDIT_EVENTS.draftFlagged,
          errorClass: needsHuman ? 'unclear' : null,
          message: `draft ${draft.version} flagged: ${result.flags.join(', ')}`,
          eventKey: `${cid}:${EMAIL_AUDIT_EVENTS.draftFlagged}:${draft.id}`,
        });
      }
      return {
        ...toView(draft),
        flags: result.flags,
        needsHuman,
        ...(result.category ? { category: result.category.slice(0, 100) } : {}),
        ...shadowOf(deps, email),
      };
    },
  };
}
