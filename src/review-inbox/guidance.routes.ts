/**
 * The guidance page (docs/review-inbox.md "Guidance"): every scope's current text and version, one
 * scope's history, and, for operators, a form that saves a new version (the `email-rag guidance
 * set` logic, audited). Reviewers read it: they should know what the drafts were told. An email's
 * review page names the versions its draft was written under, linked to this page.
 */
import type { FastifyRequest } from 'fastify';
import {
  knownNames,
  saveGuidance,
  DEFAULT_SCOPE,
  GUIDANCE_MAX_CHARS,
  guidanceIds,
  formatScope,
  parseScope,
  type GuidanceVersion,
} from '../guidance';
import { createMariaDbGuidanceStore } from '../guidance/index.adapters';
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { errorMessage } from '../platform/errors';
import type { InboxContext, InboxDeps } from './inbox-context';
import { formatTime } from './format';
import { GUIDANCE_TEXTS } from './guidance-texts';
import { pickLanguage } from './i18n';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** Where a version is shown: its scope's history, at the version. */
export const guidanceHref = (v: GuidanceVersion): string => `/guidance?scope=${encodeURIComponent(formatScope(v.scope))}#g${v.id}`;
const textsOf = (req: FastifyRequest) => GUIDANCE_TEXTS[req.session.lang ?? pickLanguage(req.headers['accept-language'])];

const view = (v: GuidanceVersion) => ({
  id: v.id,
  scope: formatScope(v.scope),
  version: v.version,
  text: v.text,
  chars: v.text.length,
  author: v.author,
  at: formatTime(v.createdAt),
  href: guidanceHref(v),
});

/** The guidance versions a draft names (`g12+g15`), each with its scope, version and link; empty for none. */
export async function draftGuidanceLinks(deps: Pick<InboxDeps, 'pool'>, tag: string | null | undefined) {
  const ids = guidanceIds(tag);
  if (ids.length === 0) return [];
  const found = await createMariaDbGuidanceStore(deps.pool).byIds(ids);
  // In the order the draft names them (most general first); an id no longer stored is shown as it is.
  return ids.map((id) => {
    const v = found.find((f) => f.id === id);
    return v ? { label: `${formatScope(v.scope)} v${v.version}`, href: guidanceHref(v) } : { label: `g${id}`, href: null };
  });
}

export function registerGuidanceRoutes({ app, deps, page }: InboxContext): void {
  const store = createMariaDbGuidanceStore(deps.pool);
  const known = knownNames(deps.config);

  app.get('/guidance', async (req, reply) => {
    const gt = textsOf(req);
    const wanted = str((req.query as Record<string, unknown>).scope) || DEFAULT_SCOPE;
    let scope: string;
    try {
      scope = formatScope(parseScope(wanted));
    } catch {
      scope = DEFAULT_SCOPE;
    }
    const [current, history] = await Promise.all([store.listCurrent(), store.history(parseScope(scope))]);
    return page(req, reply, 'guidance', {
      gt,
      max: GUIDANCE_MAX_CHARS,
      intro: gt.guidanceIntro.replace('{max}', String(GUIDANCE_MAX_CHARS)),
      textHint: gt.textHint.replace('{max}', String(GUIDANCE_MAX_CHARS)),
      historyTitle: gt.history.replace('{scope}', scope),
      current: current.map((v) => ({
        ...view(v),
        first: v.text.split('\n')[0] ?? '',
        historyHref: `/guidance?scope=${encodeURIComponent(formatScope(v.scope))}`,
      })),
      scope,
      history: history.map(view),
      // The form starts from the scope's current text: a new version is usually an edit of it.
      draft: history[0]?.text ?? '',
      scopes: [DEFAULT_SCOPE, ...known.mailboxes.map((m) => `mailbox:${m}`), ...known.categories.map((c) => `category:${c}`)],
      canEdit: req.actor?.role === 'operator',
    });
  });

  app.post('/guidance', async (req, reply) => {
    if (req.actor?.role !== 'operator') return reply.code(403).type('text/plain; charset=utf-8').send('403: only operators write guidance');
    const gt = textsOf(req);
    const form = (req.body ?? {}) as Record<string, unknown>;
    const scope = str(form.scope).trim();
    try {
      const { created, version } = await saveGuidance(
        { store, audit: createMariaDbAuditLog(deps.pool) },
        { scope, text: str(form.text), author: req.actor.name },
        known,
      );
      const words = { scope: formatScope(version.scope), version: String(version.version) };
      req.session.flash = {
        kind: 'ok',
        message: (created ? gt.saved : gt.unchanged).replace('{scope}', words.scope).replace('{version}', words.version),
      };
      return reply.redirect(`/guidance?scope=${encodeURIComponent(words.scope)}`, 303);
    } catch (err) {
      req.session.flash = { kind: 'refused', message: errorMessage(err) };
      return reply.redirect(`/guidance?scope=${encodeURIComponent(scope || DEFAULT_SCOPE)}`, 303);
    }
  });
}
