import {
  QUEUE_COUNT_CAP,
  QUEUE_FLAGS,
  REVIEW_STATUSES,
  decodeCursor,
  encodeCursor,
  type QueueCursor,
  type QueueFilter,
} from './review-store.mariadb';
import type { Priority } from './review-inbox.config';
import { cleanSearch, QUEUE_SEARCH_MAX_CHARS } from './review-queue-search';
import type { InboxContext } from './inbox-context';
import { formatClock, formatDuration } from './format';

const PRIORITIES: Priority[] = ['critical', 'high', 'normal', 'low'];
const VIEWS = ['mine', 'unassigned'] as const;

function pick(value: unknown, allowed: readonly string[]): string | undefined {
  return typeof value === 'string' && allowed.includes(value) ? value : undefined;
}

/** The query string of the queue with these filters (and a cursor), the way every link carries them. */
function queueUrl(filter: Record<string, string | undefined>, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...filter, ...extra })) if (v) params.set(k, v);
  const qs = params.toString();
  return qs ? `/?${qs}` : '/';
}

export function registerQueueRoutes({ app, deps, page }: InboxContext): void {
  app.get('/', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    // The registry's mailboxes first, then any other id the emails still name (a removed entry).
    const registry = deps.config.mailboxes.map((m) => m.id);
    const mailboxes = [...new Set([...registry, ...(await deps.store.mailboxes())])];
    const ruleTeams = (deps.config.routing?.rules ?? []).flatMap((r) => (r.team ? [r.team] : []));
    const teams = [...new Set([...ruleTeams, ...(await deps.store.teams())])];
    const rawSearch = typeof q.q === 'string' ? cleanSearch(q.q) : '';
    const searchTooLong = rawSearch.length > QUEUE_SEARCH_MAX_CHARS;
    const view = pick(q.view, VIEWS) as QueueFilter['view'];
    // What the links carry: only known values, so a link never repeats what the server refused.
    const shown = {
      mailbox: pick(q.mailbox, mailboxes),
      priority: pick(q.priority, PRIORITIES),
      status: pick(q.status, REVIEW_STATUSES),
      flag: pick(q.flag, QUEUE_FLAGS),
      view,
      team: pick(q.team, teams),
      q: searchTooLong ? undefined : rawSearch || undefined,
    };
    // Every filter but the tab: the tabs' counts use it too.
    const others: Omit<QueueFilter, 'view'> = {
      ...(shown.mailbox ? { mailbox: shown.mailbox } : {}),
      ...(shown.priority ? { priority: shown.priority } : {}),
      ...(shown.status ? { status: shown.status } : {}),
      ...(shown.flag ? { flag: shown.flag } : {}),
      ...(shown.team ? { team: shown.team } : {}),
      ...(shown.q ? { search: shown.q } : {}),
    };
    const filter: QueueFilter = { ...others, ...(view ? { view, me: req.actor!.name } : {}) };
    const after = decodeCursor(q.after);
    const before = after ? null : decodeCursor(q.before);
    const result = searchTooLong
      ? { items: [], next: null, prev: null }
      : await deps.store.queue(filter, { ...(after ? { after } : {}), ...(before ? { before } : {}) });
    // Each tab's count under the same filters, so a reviewer sees where work waits before clicking.
    const counts = searchTooLong ? null : await deps.store.tabCounts(others, req.actor!.name);
    const sla = deps.config.inbox.slaMinutes;
    const items = result.items.map((i) => {
      const left = (sla[i.priority as Priority] ?? sla.normal) * 60 - i.ageSeconds;
      return {
        ...i,
        age: formatDuration(i.ageSeconds),
        slaLeft: formatDuration(Math.abs(left)),
        overdue: left < 0,
        // Another reviewer's claim; one's own needs no warning.
        claim:
          i.claimedBy && i.claimedUntil
            ? { by: i.claimedBy, until: formatClock(i.claimedUntil), mine: i.claimedBy === req.actor!.name }
            : null,
      };
    });
    const link = (c: QueueCursor, key: 'after' | 'before') => queueUrl(shown, { [key]: encodeCursor(c) });
    const tabs = [undefined, ...VIEWS].map((v) => {
      const n = counts?.[v ?? 'all'];
      return {
        view: v ?? 'all',
        href: queueUrl({ ...shown, view: v }),
        current: v === view,
        count: n === undefined ? null : n > QUEUE_COUNT_CAP ? `${QUEUE_COUNT_CAP.toLocaleString('en')}+` : String(n),
      };
    });
    return page(req, reply, 'queue', {
      items,
      filter: shown,
      tabs,
      searchTooLong,
      searchMax: QUEUE_SEARCH_MAX_CHARS,
      paging: {
        next: result.next ? link(result.next, 'after') : null,
        prev: result.prev ? link(result.prev, 'before') : null,
        first: after || before ? queueUrl(shown) : null,
      },
      options: { mailboxes, priorities: PRIORITIES, statuses: REVIEW_STATUSES, flags: QUEUE_FLAGS, teams },
      // Reloading on its own is opt-in (WCAG 2.2.1): a reviewer choosing a row is never interrupted.
      refresh: q.live === '1',
      liveUrl: queueUrl(shown, { live: '1' }),
      stillUrl: queueUrl(shown),
    });
  });
}
