import { QUEUE_FLAGS, REVIEW_STATUSES, type QueueFilter } from '../../adapters/mariadb/review-store';
import type { Priority } from '../../lib/inbox-config';
import type { InboxContext } from '../app';
import { formatDuration } from '../format';

const PRIORITIES: Priority[] = ['critical', 'high', 'normal', 'low'];

function pick(value: unknown, allowed: readonly string[]): string | undefined {
  return typeof value === 'string' && allowed.includes(value) ? value : undefined;
}

export function registerQueueRoutes({ app, deps, page }: InboxContext): void {
  app.get('/', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    // The registry's mailboxes first, then any other id the emails still name (a removed entry).
    const registry = deps.config.mailboxes.map((m) => m.id);
    const mailboxes = [...new Set([...registry, ...(await deps.store.mailboxes())])];
    const filter: QueueFilter = {
      ...(pick(q.mailbox, mailboxes) ? { mailbox: q.mailbox as string } : {}),
      ...(pick(q.priority, PRIORITIES) ? { priority: q.priority as string } : {}),
      ...(pick(q.status, REVIEW_STATUSES) ? { status: q.status as string } : {}),
      ...(pick(q.flag, QUEUE_FLAGS) ? { flag: q.flag as string } : {}),
    };
    const sla = deps.config.inbox.slaMinutes;
    const items = (await deps.store.queue(filter)).map((i) => {
      const left = (sla[i.priority as Priority] ?? sla.normal) * 60 - i.ageSeconds;
      return { ...i, age: formatDuration(i.ageSeconds), slaLeft: formatDuration(Math.abs(left)), overdue: left < 0 };
    });
    return page(req, reply, 'queue', {
      items,
      filter,
      options: { mailboxes, priorities: PRIORITIES, statuses: REVIEW_STATUSES, flags: QUEUE_FLAGS },
      // Reloading on its own is opt-in (WCAG 2.2.1): a reviewer choosing a row is never interrupted.
      refresh: q.live === '1',
      liveUrl: `/?${new URLSearchParams({ ...filter, live: '1' }).toString()}`,
      stillUrl: `/?${new URLSearchParams({ ...filter }).toString()}`,
    });
  });
}
