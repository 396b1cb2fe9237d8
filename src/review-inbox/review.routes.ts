import type { FastifyReply, FastifyRequest } from 'fastify';
import { type DecisionInput, WAITING_KINDS, STATUS } from '../email';
import { createMariaDbCaseView } from '../cases/index.adapters';
import { createMariaDbAccessLog } from '../privacy/index.adapters';
import { ACCESS_ACTIONS } from '../privacy';
import { DRAFT_STATUS, separateCitations } from '../drafting';
import { createMariaDbDraftClaimStore } from '../drafting/index.adapters';
import { errorMessage } from '../platform/errors';
import { temporalUiLink, type InboxContext } from './inbox-context';
import { CASE_TEXTS } from './case-texts';
import { pickLanguage } from './i18n';
import { formatClock, formatTime } from './format';
import { pendingAutoSend } from './autonomy.routes';
import { attachmentRows, attachmentSource } from './attachments.routes';
import { draftGuidanceLinks } from './guidance.routes';
import { GUIDANCE_TEXTS } from './guidance-texts';
import { groundingView } from './grounding-view';

type Form = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** Browsers send textarea lines with CRLF; drafts are stored with LF. */
const normalise = (text: string): string => text.replace(/\r\n?/g, '\n');
const emailPath = (id: string) => `/email/${encodeURIComponent(id)}`;

export function registerReviewRoutes({ app, deps, page }: InboxContext): void {
  const cases = createMariaDbCaseView(deps.pool);
  // Who opened which email: written before the page is shown, so no view goes unrecorded.
  const access = createMariaDbAccessLog(deps.pool);
  const claims = createMariaDbDraftClaimStore(deps.pool);
  app.get('/email/:id', async (req, reply) => {
    const { id } = req.params as { id: string };
    const email = await deps.store.email(id);
    if (!email) return reply.code(404).type('text/plain; charset=utf-8').send('404: no such email');
    await access.record({ actor: req.actor!.name, action: ACCESS_ACTIONS.emailViewed, emailId: id });
    const drafts = await deps.store.drafts(id);
    const current = drafts.at(-1) ?? null;
    const { claim, assignment } = await caseOf(email.caseId, req.actor!.name);
    const wanted = Number((req.query as Form).draft);
    const shown = (Number.isInteger(wanted) ? drafts.find((d) => d.version === wanted) : undefined) ?? current;
    let temporalDown = false;
    let waiting = null;
    try {
      waiting = (await deps.decisions.state(id))?.waitingFor ?? null;
    } catch {
      temporalDown = true;
    }
    const olderShown = !!shown && !!current && shown.id !== current.id;
    // A decision names the draft on screen; without a stored draft (the drafter failed) the one the workflow waits for.
    const decisionDraftId = shown && !olderShown ? shown.id : waiting && 'draftId' in waiting ? waiting.draftId : '';
    const send = shown ? await deps.store.sendOf(shown.id) : null;
    // The case it belongs to, and how much else of it is open: one reply may answer them together.
    const emailCase = await cases.ofEmail(id);
    // Only the current draft can be sent automatically; an older one shown has nothing pending.
    const autoSend = olderShown || shown?.status !== DRAFT_STATUS.awaitingApproval ? null : await pendingAutoSend(deps, shown.id);
    const sources = (shown?.contextIds ?? []).map((sid) => ({ id: sid, href: `${emailPath(id)}/source?sid=${encodeURIComponent(sid)}` }));
    const sourceHref = (sid: string) => `${emailPath(id)}/source?sid=${encodeURIComponent(sid)}`;
    // Drafts by a person or held ones have nothing to check; a model's or the offline drafter's are checked.
    const grounding = shown && shown.body.trim() !== '' ? groundingView(shown, id, await claims.list(shown.id), sourceHref) : null;
    // The text offered for approval names no internal id: a draft stored before drafts kept their
    // sources apart is shown without them, so approving it sends (as an edit) exactly what is seen.
    const replyText = shown ? separateCitations(shown.body, [id, ...shown.contextIds]).body : '';
    return page(req, reply, 'review', {
      replyText,
      email: { ...email, received: formatTime(email.date ?? email.createdAt) },
      thread: (await deps.store.thread(email)).map((m) => ({ ...m, at: formatTime(m.at), href: m.ours ? null : emailPath(m.id) })),
      outside: await outsideAnswer(deps.store, id),
      shown,
      current,
      olderShown,
      currentHref: emailPath(id),
      decisionDraftId,
      waiting: olderShown ? null : waiting,
      // The template compares `waiting.kind` with these, not with words of its own.
      kinds: WAITING_KINDS,
      // Held as spam: the page offers the release the spam list offers.
      heldAsSpam: email.status === STATUS.ignored && email.triageClass === 'spam' && Boolean(deps.release),
      temporalDown,
      send,
      autoSend,
      sources,
      grounding,
      attachments: deps.attachments ? attachmentRows(id, await deps.attachments.list(id)) : [],
      audit: (await deps.store.audit(id)).map((a) => ({ ...a, at: formatTime(a.at) })),
      temporalLink: temporalUiLink(deps.config, id),
      emailCase: emailCase && { ...emailCase, href: `/cases/${encodeURIComponent(emailCase.id)}` },
      ct: CASE_TEXTS[req.session.lang ?? pickLanguage(req.headers['accept-language'])],
      action: (name: string) => `${emailPath(id)}/${name}`,
      claim,
      assignment,
      // The guidance versions the shown draft was written under, linked to the guidance page.
      guidance: await draftGuidanceLinks(deps, shown?.guidanceVersion),
      gt: GUIDANCE_TEXTS[req.session.lang ?? pickLanguage(req.headers['accept-language'])],
    });
  });

  /** Opening an email holds its case for the reviewer a few minutes; the page says who holds it. */
  async function caseOf(caseId: string | null, me: string) {
    if (!caseId) return { claim: null, assignment: null };
    const held = deps.claims ? (await deps.claims.claim(caseId, me, deps.config.inbox.claimMinutes * 60)).holder : null;
    const assignment = deps.caseRouting ? await deps.caseRouting.facts(caseId) : null;
    return {
      claim: held ? { by: held.by, until: formatClock(held.until), mine: held.by === me } : null,
      assignment: assignment ? { ...assignment, id: caseId } : { id: caseId, team: null, owner: null, routedBy: null },
    };
  }

  app.post('/email/:id/assign', async (req, reply) => {
    const { id } = req.params as { id: string };
    const form = (req.body ?? {}) as Form;
    const email = await deps.store.email(id);
    if (!email) return reply.code(404).type('text/plain; charset=utf-8').send('404: no such email');
    if (!email.caseId || !deps.caseRouting) {
      req.session.flash = { kind: 'refused', message: 'this email belongs to no case' };
      return reply.redirect(emailPath(id), 303);
    }
    const owner = str(form.owner).trim();
    const team = str(form.team).trim();
    try {
      const a = await deps.caseRouting.assignCase(email.caseId, { owner: owner || null, team: team || null }, req.actor!.name);
      // The assignment is the case row's: nothing runs on a timer that needs telling.
      req.session.flash = { kind: 'ok', message: `${email.caseId}: ${[a.owner, a.team].filter(Boolean).join(' / ') || '–'}` };
    } catch (err) {
      req.session.flash = { kind: 'refused', message: errorMessage(err) };
    }
    return reply.redirect(emailPath(id), 303);
  });

  app.get('/email/:id/source', async (req, reply) => {
    const { id } = req.params as { id: string };
    const sid = str((req.query as Form).sid);
    const drafts = await deps.store.drafts(id);
    // Only what one of this email's drafts was given may be opened from here.
    const draft = drafts.find((d) => d.contextIds.includes(sid));
    if (!draft) return reply.code(404).type('text/plain; charset=utf-8').send('404: not a source of this email');
    // A page of this email's own attachment, as the model saw it.
    const source = sid.startsWith('attachment:') ? await attachmentSource(deps, id, sid) : await deps.store.source(sid, draft.toAddress);
    if (!source) return reply.code(404).type('text/plain; charset=utf-8').send('404: the source is no longer stored');
    await access.record({ actor: req.actor!.name, action: ACCESS_ACTIONS.sourceViewed, emailId: id, detail: sid });
    return page(req, reply, 'source', { source, back: emailPath(id) });
  });

  const decide = async <N extends keyof DecisionInput>(
    req: FastifyRequest,
    reply: FastifyReply,
    name: N,
    build: (form: Form, by: string) => DecisionInput[N] | string,
  ) => {
    const { id } = req.params as { id: string };
    const form = (req.body ?? {}) as Form;
    const by = req.actor!.name;
    const input = build(form, by);
    const drafts = await deps.store.drafts(id);
    const posted = drafts.find((d) => d.id === str(form.draftId));
    const back = posted && posted.id !== drafts.at(-1)?.id ? `${emailPath(id)}?draft=${posted.version}` : emailPath(id);
    if (typeof input === 'string') {
      req.session.flash = { kind: 'refused', message: input };
      return reply.redirect(back, 303);
    }
    const outcome = await deps.decisions.decide(id, name, input);
    if (outcome.ok) {
      // The decision is made: the case is free for whoever comes next.
      const caseId = deps.claims ? (await deps.store.email(id))?.caseId : null;
      if (caseId) await deps.claims!.release(caseId, by);
      req.session.flash = { kind: 'ok', message: `${name}: ${outcome.result.message} (${outcome.result.status})` };
      return reply.redirect(emailPath(id), 303);
    }
    req.session.flash = { kind: 'refused', message: outcome.message };
    try {
      const w = (await deps.decisions.state(id))?.waitingFor;
      if (w && 'version' in w && w.draftId !== str(form.draftId)) req.session.flash.newer = { href: emailPath(id), version: w.version };
    } catch (err) {
      req.session.flash.message += ` (${errorMessage(err)})`;
    }
    return reply.redirect(back, 303);
  };

  app.post('/email/:id/approve', (req, reply) =>
    decide(req, reply, 'approve', (form, by) => {
      const draftId = str(form.draftId);
      const body = normalise(str(form.body));
      const original = str(form.original) === '' ? null : normalise(str(form.original));
      // An unchanged text approves the draft as it is (no edit recorded).
      return { draftId, by, ...(original !== null && body === original ? {} : { body }) };
    }),
  );
  app.post('/email/:id/reject', (req, reply) =>
    decide(req, reply, 'reject', (form, by) => ({ draftId: str(form.draftId), by, reason: str(form.reason).trim() })),
  );
  // Spam: rejected, nothing sent, and the spam filter learns it (no reason to type: the button says it).
  app.post('/email/:id/spam', (req, reply) => decide(req, reply, 'reject', (form, by) => ({ draftId: str(form.draftId), by, spam: true })));
  app.post('/email/:id/redraft', (req, reply) =>
    decide(req, reply, 'redraft', (form, by) => {
      const reason = str(form.reason).trim();
      return { draftId: str(form.draftId), by, ...(reason ? { reason } : {}) };
    }),
  );
  app.post('/email/:id/resend', (req, reply) =>
    decide(req, reply, 'resend', (form, by) => {
      const force = str(form.force) === 'true';
      if (force && str(form.checked) !== 'yes') return 'resend with force needs your confirmation that you checked the SMTP log';
      return { by, ...(force ? { force: true } : {}), ...(str(form.draftId) ? { draftId: str(form.draftId) } : {}) };
    }),
  );
  app.post('/email/:id/mark-sent', (req, reply) =>
    decide(req, reply, 'markSent', (form, by) => {
      const note = str(form.note).trim();
      return { draftId: str(form.draftId), by, ...(note ? { note } : {}) };
    }),
  );
}

/** The reply a person sent beside the assistant, with its times as the page shows them. */
async function outsideAnswer(store: InboxContext['deps']['store'], id: string) {
  const a = await store.outsideAnswer(id);
  return a && { ...a, at: formatTime(a.sentAt), seen: formatTime(a.seenAt) };
}
