/**
 * Held spam: the list of mail triage held as spam, with the reason, and "not spam — draft it",
 * which releases one email into the pipeline for a reply (the `email-rag answer` logic, audited as
 * `spam_released`). Any signed-in person may release: reading a held mail and answering it is the
 * reviewers' work, and the release is recorded with their name.
 */
import { errorMessage } from '../platform/errors';
import type { InboxContext } from './inbox-context';
import { formatTime } from './format';
import { heldSpam } from './held-spam.mariadb';

export function registerSpamRoutes({ app, deps, page }: InboxContext): void {
  app.get('/spam', async (req, reply) => {
    const items = await heldSpam(deps.pool);
    return page(req, reply, 'spam', {
      items: items.map((i) => ({ ...i, received: formatTime(i.receivedAt), href: `/email/${encodeURIComponent(i.emailId)}` })),
      canRelease: Boolean(deps.release),
    });
  });

  app.post('/email/:id/not-spam', async (req, reply) => {
    const id = (req.params as { id: string }).id;
    if (!deps.release)
      return reply.code(503).type('text/plain; charset=utf-8').send('503: releasing needs Temporal, which this inbox has not');
    try {
      req.session.flash = { kind: 'ok', message: await deps.release(id, req.actor!.name) };
    } catch (err) {
      req.session.flash = { kind: 'refused', message: errorMessage(err) };
    }
    // From the mail's own page back to it (now drafting), from the list back to the list.
    const back = (req.body as Record<string, unknown> | undefined)?.back === 'email' ? `/email/${encodeURIComponent(id)}` : '/spam';
    return reply.redirect(back, 303);
  });
}
