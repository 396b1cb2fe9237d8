/**
 * What every route of the review inbox is given: the app, its dependencies, the page renderer,
 * sessions and sign-in guard (`InboxContext`), and the link to an email's workflow in the Temporal
 * Web UI. Apart from app.ts, which registers the routes, so that no route imports the app.
 */
import type { Config } from '../platform/config';
import type { Pool } from '../platform/pool.mariadb';
import type { ReviewStore } from './review-store.mariadb';
import type { InboxUsers } from './inbox-users.mariadb';
import type { TemporalDecisions } from '../email';
import type { AttachmentStore } from '../attachments';
import type { Embedder } from '../retrieval';
import type { CaseClaims, CaseReplies, CaseRouting, CaseSignals } from '../cases';
import type { InboxSessions } from './session-store.mariadb';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LoginGuard } from './login-guard';
import type { AuditLog } from '../platform/store.port';
import type { OidcSignIn } from './oidc-sign-in';
import type { LogDestination } from '../platform/logger';
import type { ReadinessProbe } from '../operations';

export interface InboxDeps {
  config: Config;
  pool: Pool;
  store: ReviewStore;
  users: InboxUsers;
  decisions: TemporalDecisions;
  /** Re-runs a dead letter (the `email-rag dlq requeue` logic); returns what was done. */
  requeue(id: number, by: string): Promise<string>;
  /** Releases an email held as spam for a reply (the `email-rag answer` logic); without it the spam list only shows. */
  release?(emailId: string, by: string): Promise<string>;
  /** Attachments of the mail: listed, downloadable, inline images shown; absent: names only. */
  attachments?: AttachmentStore;
  /** Groups the knowledge gaps by topic on the operations page; without one they are listed ungrouped. */
  embedder?: Embedder | null;
  /** One reply for several mails of a case; without it the case page offers no such form. */
  caseReplies?: CaseReplies;
  /** Claims of cases by the reviewer who opened them; without it nobody claims. */
  claims?: CaseClaims;
  /** Hand assignment of cases; without it the review page offers none. */
  caseRouting?: CaseRouting;
  /** Tells a case's workflow that a person assigned it (its owner is a search attribute). */
  caseSignals?: CaseSignals;
  /** What `/readyz` asks (the database and the Temporal namespace); the database alone when not given. */
  readiness?: ReadinessProbe[];
  /** The sessions (MariaDB, shared by every inbox process); made from `pool` when not given. */
  sessions?: InboxSessions;
  /** Where the log lines go (their level is LOG_LEVEL): stderr when not given. */
  logDestination?: LogDestination;
}

export type InboxContext = {
  app: FastifyInstance;
  deps: InboxDeps;
  page(req: FastifyRequest, reply: FastifyReply, view: string, data: Record<string, unknown>): Promise<FastifyReply>;
  sessions: InboxSessions;
  guard: LoginGuard;
  audit: AuditLog;
  /** Single sign-on, when INBOX_OIDC_ISSUER is set. */
  sso?: OidcSignIn;
};

/** Link to an email's workflow page in the Temporal Web UI. */
export function temporalUiLink(config: Config, workflowId: string): string {
  return `${config.inbox.temporalUiUrl}/namespaces/${encodeURIComponent(config.temporal.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}
