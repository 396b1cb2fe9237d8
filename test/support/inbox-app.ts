/**
 * The review inbox on a test database, as the tests build it: the MariaDB review store and users,
 * no dead letters to requeue and, unless a test passes its own, a decisions port that is never
 * reached (pages that need Temporal say it is unreachable). `over` adds or replaces ports. Its log
 * lines are dropped unless a test passes a `logDestination` (test/e2e/request-logs.e2e.test.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../src/platform/pool.mariadb';
import { createMariaDbInboxUsers } from '../../src/review-inbox/inbox-users.mariadb';
import { createMariaDbReviewStore } from '../../src/review-inbox/review-store.mariadb';
import type { TemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { buildInboxApp } from '../../src/review-inbox/app';
import type { InboxDeps } from '../../src/review-inbox/inbox-context';
import type { Config } from '../../src/config';

export function inboxOnDatabase(config: Config, pool: Pool, over: Partial<InboxDeps> = {}): Promise<FastifyInstance> {
  return buildInboxApp({
    config,
    pool,
    store: createMariaDbReviewStore(pool),
    users: createMariaDbInboxUsers(pool),
    decisions: {} as TemporalDecisions,
    requeue: () => Promise.resolve(''),
    logDestination: { write: () => undefined },
    ...over,
  });
}

/** Listens on a free port of 127.0.0.1; returns the base URL. */
export async function listenLocally(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}
