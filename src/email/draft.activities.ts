import { FAILURE_TYPES } from '../platform/contract';
import { hiddenHtmlText } from './mail-parser';
import { PermanentError, errorMessage } from '../platform/errors';
import { describeFindings, guardMail } from '../drafting/injection-guard';
import { readIntentSet } from '../drafting/injection-intents';
import { DEFAULT_INTENT_THRESHOLD, type IntentDetectorSettings } from '../drafting/intent-detector';
import { replyToDiffers } from './recipients';
import type { DraftContextItem } from '../drafting/drafter.port';
import type { DraftRecord } from '../platform/store.port';
import type { ActivityDeps } from '../../activities/activity-deps';
import { correlationId } from '../platform/activity-context';
import { caseContext } from '../cases/case.activities';
import { knownCategory, readCategoryList, type Category } from '../drafting/categories';
import { nearestCategory } from '../drafting/category-match';
import { questionOf } from '../drafting/reply-composer';
import { knowledgeForCaseMails } from './case-mail-knowledge';
import { attachmentContext } from '../attachments/attachment-text';
import { draftHold, type DraftHold } from './draft-hold';
import { emailKey, mailboxOf } from '../mailboxes/mailbox-of';
import { EMAIL_AUDIT_EVENTS } from './email.contract';
import { DEFAULT_CONTEXT_CHARS } from '../drafting/drafting.config';
import { RETRIEVAL_AUDIT_EVENTS } from '../retrieval/retrieval.contract';

/** What the workflow keeps of a draft: enough for the approval query, nothing large. */
export interface DraftView {
  draftId: string;
  version: number;
  subject: string;
  body: string;
  to: { name: string; address: string };
  language: string;
  confidence: number;
  drafter: string;
  model: string;
  flags: string[];
  /** True when the drafter gave up (no usable body): a person must write the reply. */
  needsHuman: boolean;
  /** The drafter's category for the email (e.g. billing), when it gave one. */
  category?: string;
  /** Why no draft was written on purpose (reply limit, abuse complaint): the manual review's reason. */
  heldReason?: string;
}

const CONTEXT_LIMIT = 8;

/** Keeps the context items in their order of relevance until the budget (LLM_CONTEXT_CHARS) is spent. */
export function withinBudget(items: DraftContextItem[], budget = DEFAULT_CONTEXT_CHARS): DraftContextItem[] {
  const kept: DraftContextItem[] = [];
  let used = 0;
  for (const item of items) {
    if (used + item.text.length > budget) {
      if (budget - used > 200) kept.push({ ...item, text: `${item.text.slice(0, budget - used)} …` });
      break;
    }
    kept.push(item);
    used += item.text.length;
  }
  return kept;
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
  ActivityDeps,
  'messages' | 'audit' | 'index' | 'drafter' | 'drafts' | 'mailboxes' | 'embedder' | 'case' | 'attachments'
> & {
  settings?: Pick<ActivityDeps['settings'], 'injectionGuard' | 'replyLimitPerHour' | 'categories' | 'contextChars'>;
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
      language: 'und',
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
        language: 'und',
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
      if (hold) return holdDraft(email, to, input.version, hold);
      let context: DraftContextItem[] = [];
      const budget = deps.settings?.contextChars ?? DEFAULT_CONTEXT_CHARS;
      // Only the mail of this email's mailbox (or its team) can become context.
      const key = emailKey(deps, email);
      try {
        const answered = {
          emailId: email.id,
          threadId: email.threadId,
          account: key.account,
          mailbox: key.mailbox,
          direction: 'in' as const,
          fromAddress: to.address,
          subject: email.subject,
          text: email.text,
          date: email.date,
        };
        context = await deps.index.retrieve(answered, CONTEXT_LIMIT).then((items) => withinBudget(items, budget));
        // The case's other open mails come first: one reply can answer what the customer asked in
        // each, with what our knowledge says to each of them.
        const fromCase = await caseContext(deps, email);
        if (fromCase.length > 0) {
          const ids = new Set(fromCase.map((c) => c.sourceId));
          const forThem = await knowledgeForCaseMails(deps.index, answered, fromCase);
          const own = context.filter((c) => !ids.has(c.sourceId));
          // The answered mail's best passages first, then each other mail's, then the rest.
          context = withinBudget([...fromCase, ...own.slice(0, 3), ...forThem, ...own.slice(3)], budget);
        }
      } catch (err) {
        // Less context is better than no draft: when retrieval fails the draft is written without it,
        // and the audit log says so (docs/queue-model.md).
        await deps.audit.record({
          emailId: email.id,
          correlationId: cid,
          eventType: RETRIEVAL_AUDIT_EVENTS.degraded,
          errorClass: 'dependency',
          message: `drafting without retrieved context: ${errorMessage(err)}`,
          eventKey: `${cid}:${RETRIEVAL_AUDIT_EVENTS.degraded}:${input.version}`,
        });
      }
      // What the customer attached to this very mail comes first ("see the attached invoice");
      // unreadable stored text only means a draft without it.
      const attached = await attachmentContext(deps, email.id).catch(() => []);
      if (attached.length > 0) context = withinBudget([...attached, ...context], budget);
      const lines = email.text.split(/\r?\n/);
      const guard = await guardMail(
        {
          subject: email.subject,
          body: lines.filter((l) => !l.trimStart().startsWith('>')).join('\n'),
          quoted: lines.filter((l) => l.trimStart().startsWith('>')).join('\n'),
          // The names and the text read from the files: an instruction hidden in a PDF is still an instruction.
          attachments: [
            ...email.attachments.map((a) => a.filename ?? ''),
            ...context.filter((c) => c.kind === 'attachment').map((c) => c.text),
          ].join('\n'),
          context: context.map((c) => c.text).join('\n'),
          hiddenHtml: email.hasHtml ? await hiddenHtmlText(await deps.messages.getRaw(email.id)) : undefined,
        },
        { embedder: deps.embedder, settings: guardSettings() },
      );
      const { findings } = guard;
      if (findings.length > 0) {
        // The model never acts on these (no tools, fixed recipient), but the reviewer must know.
        await deps.audit.record({
          emailId: email.id,
          correlationId: cid,
          eventType: EMAIL_AUDIT_EVENTS.injectionSuspected,
          errorClass: null,
          message: `possible prompt injection: ${describeFindings(findings)}${guard.intentCheck === 'skipped' ? ' (intent check skipped: embedder unavailable)' : ''}`,
          details: { findings, intentCheck: guard.intentCheck },
          eventKey: `${cid}:injection:${input.version}`,
        });
      }
      if (guard.intentCheck === 'skipped') {
        // The words were still checked; without the embedder only the meaning went unchecked.
        await deps.audit.record({
          emailId: email.id,
          correlationId: cid,
          eventType: EMAIL_AUDIT_EVENTS.injectionCheckDegraded,
          errorClass: 'dependency',
          message: `injection guard: intent check skipped, heuristic only: ${guard.skippedBecause ?? 'embedder unavailable'}`,
          eventKey: `${cid}:${EMAIL_AUDIT_EVENTS.injectionCheckDegraded}:${input.version}`,
        });
      }
      const { language } = mailboxOf(deps, email.mailboxId).entry;
      const categories = deps.settings?.categories ?? (shippedCategories ??= readCategoryList());
      // A model picks its category from the list; without one, the nearest by meaning is taken.
      const categoryHint =
        deps.drafter.name === 'offline'
          ? await nearestCategory(deps.embedder, questionOf(email.subject, email.text), categories)
          : undefined;
      const drafted = await deps.drafter.draft({
        emailId: email.id,
        from: to,
        subject: email.subject,
        text: email.text,
        context,
        language,
        categories,
        ...(categoryHint ? { categoryHint } : {}),
      });
      // Whatever a drafter said, only a name of the list (or unclassified) reaches rules and autonomy.
      drafted.category = knownCategory(categories, drafted.category);
      const result = findings.length > 0 ? { ...drafted, flags: [...drafted.flags, 'possible_prompt_injection'] } : drafted;
      if (replyToDiffers(email.from, email.replyTo)) result.flags = [...result.flags, 'reply_to_differs'];
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
        to,
      });
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
      return { ...toView(draft), flags: result.flags, needsHuman, ...(result.category ? { category: result.category.slice(0, 100) } : {}) };
    },
  };
}
