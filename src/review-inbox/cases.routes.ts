/**
 * The case page: a correspondent's open work at a glance (status, owner, claim, response target,
 * the handover summary, the open mails with their current drafts, the history) and one reply that
 * answers several of its mails through the CaseReplies port.
 */
import type { FastifyRequest } from 'fastify';
import { createMariaDbAccessLog } from '../privacy/index.adapters';
import { ACCESS_ACTIONS } from '../privacy';
import { createMariaDbCaseView } from '../cases/index.adapters';
import { type CaseDetails, type CaseEmail, CASE_STATUS, type CaseReplyResult } from '../cases';
import { errorMessage } from '../platform/errors';
import type { InboxContext } from './inbox-context';
import { CASE_TEXTS } from './case-texts';
import { formatTime } from './format';
import { pickLanguage } from './i18n';
import { separateCitations } from '../drafting';

declare module 'fastify' {
  interface Session {
    /** What the last one-reply request did, shown once on the case page. */
    caseAnswer?: { caseId: string; accepted: boolean; message: string; covered: CaseReplyResult['covered'] };
  }
}

type Form = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];
/** Browsers send textarea lines with CRLF; drafts are stored with LF. */
const normalise = (text: string): string => text.replace(/\r\n?/g, '\n');
export const casePath = (id: string) => `/cases/${encodeURIComponent(id)}`;
const emailPath = (id: string) => `/email/${encodeURIComponent(id)}`;
/** The field that carries a covered mail's draft id, next to its checkbox. */
export const coverDraftField = (emailId: string) => `draft:${emailId}`;
/** A draft beside the others is read in part; the review page has all of it. */
const SHOWN_DRAFT_CHARS = 4_000;
const MAX_RESULT_ENTRIES = 200;

function langOf(req: FastifyRequest) {
  return req.session.lang ?? pickLanguage(req.headers['accept-language']);
}

function mailView(e: CaseEmail) {
  const body = e.draft?.body ?? '';
  return {
    ...e,
    received: formatTime(e.receivedAt),
    href: emailPath(e.id),
    draftShown: body.length > SHOWN_DRAFT_CHARS ? `${body.slice(0, SHOWN_DRAFT_CHARS)}…` : body,
    draftCut: body.length > SHOWN_DRAFT_CHARS,
  };
}

/** The page's view of the case row: times formatted, and what is due, claimed or missed now. */
function caseView(c: CaseDetails['case'], now: Date) {
  const claimActive = !!c.claimedBy && !!c.claimedUntil && c.claimedUntil > now;
  return {
    ...c,
    opened: formatTime(c.openedAt),
    waiting: c.waitingSince ? formatTime(c.waitingSince) : null,
    due: c.dueAt ? formatTime(c.dueAt) : null,
    overdue: !!c.dueAt && c.dueAt <= now && c.status !== CASE_STATUS.closed,
    remind: c.remindAt ? formatTime(c.remindAt) : null,
    reminded: c.remindedAt ? formatTime(c.remindedAt) : null,
    breached: c.breachedAt ? formatTime(c.breachedAt) : null,
    escalated: c.escalatedAt ? formatTime(c.escalatedAt) : null,
    closed: c.closedAt ? formatTime(c.closedAt) : null,
    claim: c.claimedBy ? { by: c.claimedBy, until: formatTime(c.claimedUntil), active: claimActive } : null,
  };
}

export function registerCaseRoutes({ app, deps, page }: InboxContext): void {
  const cases = createMariaDbCaseView(deps.pool);
  const access = createMariaDbAccessLog(deps.pool);
  const notFound = 'no such case';

  app.get('/cases/:id', async (req, reply) => {
    const { id } = req.params as { id: string };
    const details = await cases.details(id);
    if (!details) return reply.code(404).type('text/plain; charset=utf-8').send(`404: ${notFound}`);
    // Before the page is shown, like an email's: a subject access request finds every look at their mail.
    await access.recordMany(
      details.emails.map((e) => ({ actor: req.actor!.name, action: ACCESS_ACTIONS.caseViewed, emailId: e.id, detail: id })),
    );
    const ct = CASE_TEXTS[langOf(req)];
    const mails = details.emails.map(mailView);
    const waiting = mails.filter((m) => m.waitingForApproval);
    const lead = waiting[0] ?? null;
    const answer = req.session.caseAnswer?.caseId === id ? req.session.caseAnswer : undefined;
    if (req.session.caseAnswer) req.session.caseAnswer = undefined;
    return page(req, reply, 'case', {
      ct,
      kase: caseView(details.case, new Date()),
      summaryKind: details.case.summaryKind ? ((ct as Record<string, unknown>)[`summaryKind_${details.case.summaryKind}`] ?? null) : null,
      summaryCovers: ct.summaryCovers(details.case.summaryEmails, details.emails.length),
      openMails: mails.filter((m) => !m.settled),
      endedMails: mails.filter((m) => m.settled),
      events: details.events.map((e) => ({ ...e, at: formatTime(e.at), href: e.emailId ? emailPath(e.emailId) : null })),
      moreEvents: details.moreEvents,
      // The form needs the port and two mails to answer; the lead is the oldest waiting mail.
      answerForm:
        deps.caseReplies && lead && waiting.length >= 2
          ? // The text offered names no internal id (a draft of an earlier release had them): what is sent is what is seen.
            { lead, others: waiting.slice(1), replyText: separateCitations(lead.draft?.body ?? '', [lead.id]).body }
          : null,
      answerNote: !deps.caseReplies ? null : waiting.length < 2 ? ct.answerNeedsTwo : null,
      coverDraftField,
      answer,
      answerAction: `${casePath(id)}/answer`,
    });
  });

  app.post('/cases/:id/answer', async (req, reply) => {
    const { id } = req.params as { id: string };
    const details = await cases.details(id);
    if (!details) return reply.code(404).type('text/plain; charset=utf-8').send(`404: ${notFound}`);
    const ct = CASE_TEXTS[langOf(req)];
    if (!deps.caseReplies) return reply.code(404).type('text/plain; charset=utf-8').send(`404: ${ct.answerUnavailable}`);
    const form = (req.body ?? {}) as Form;
    const back = casePath(id);
    const refuse = (message: string) => {
      req.session.flash = { kind: 'refused', message };
      return reply.redirect(back, 303);
    };
    const ofCase = new Map(details.emails.map((e) => [e.id, e]));
    const leadEmailId = str(form.leadEmailId);
    const leadDraftId = str(form.leadDraftId);
    if (!ofCase.has(leadEmailId) || !leadDraftId) return refuse('the reply must name a mail of this case and the draft you read');
    const coverIds = [...new Set(list(form.cover))].filter((c) => c !== leadEmailId);
    // Only mails of this case, each with the draft the reviewer saw: anything else is refused whole, nothing is sent.
    const strangers = coverIds.filter((c) => !ofCase.has(c));
    if (strangers.length > 0) return refuse(`not mails of this case: ${strangers.slice(0, 5).join(', ')}`);
    const covers = coverIds.map((emailId) => ({ emailId, draftId: str(form[coverDraftField(emailId)]) }));
    const missing = covers.filter((c) => !c.draftId).map((c) => c.emailId);
    if (missing.length > 0) return refuse(`no draft named for: ${missing.slice(0, 5).join(', ')}`);
    if (covers.length === 0) return refuse('tick at least one other mail, or decide the mail on its own review page');
    const body = normalise(str(form.body));
    const original = str(form.original) === '' ? null : normalise(str(form.original));
    let result: CaseReplyResult;
    try {
      result = await deps.caseReplies.answer({
        caseId: id,
        leadEmailId,
        leadDraftId,
        // An unchanged text sends the lead draft as it is (no edit recorded).
        ...(original !== null && body === original ? {} : { body }),
        covers,
        by: req.actor!.name,
      });
    } catch (err) {
      return refuse(errorMessage(err));
    }
    req.session.caseAnswer = {
      caseId: id,
      accepted: result.accepted,
      message: result.message,
      covered: result.covered.slice(0, MAX_RESULT_ENTRIES),
    };
    return reply.redirect(back, 303);
  });
}
