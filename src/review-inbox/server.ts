/** Starts the review inbox: one MariaDB pool, one Temporal client, one HTTP listener. */
import { createCaseReplies, createMariaDbCaseClaims, createMariaDbCaseRouting, createTemporalCaseSignals } from '../cases/index.adapters';
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { createMariaDbInboxUsers } from './inbox-users.mariadb';
import { createPool } from '../platform/pool.mariadb';
import { createMariaDbReviewStore } from './review-store.mariadb';
import { createMariaDbAttachmentStore } from '../attachments/index.adapters';
import { createTemporalDecisions, pullBack, temporalPullBackStart } from '../email/index.adapters';
import { databaseProbe, dlqRequeue, temporalNamespaceProbe } from '../operations/index.adapters';
import { connectDatabase, connectTemporal } from '../platform/cli-context';
import type { Config } from '../platform/config';
import { buildEmbedder } from '../retrieval/index.adapters';
import { buildInboxApp } from './app';

export interface RunningInbox {
  url: string;
  close(): Promise<void>;
}

export async function startInbox(config: Config): Promise<RunningInbox> {
  // Checked once with a clear message, then a pool sized for a handful of reviewers.
  await (await connectDatabase(config)).end();
  const pool = createPool(config.databaseUrl, 4, 4_000);
  const temporal = await connectTemporal(config);
  // For the knowledge gaps on the operations page only: without an embedder they are shown ungrouped.
  const embedding = await buildEmbedder(config).catch(() => null);
  const decisions = createTemporalDecisions(temporal.client);
  const app = await buildInboxApp({
    config,
    pool,
    store: createMariaDbReviewStore(pool),
    attachments: createMariaDbAttachmentStore(pool),
    users: createMariaDbInboxUsers(pool),
    decisions,
    requeue: (id, by) => dlqRequeue(config, id, by),
    release: (id, by) =>
      pullBack(
        {
          pool,
          maxDrafts: config.maxDrafts,
          llmTimeoutMs: config.llm.timeoutMs,
          start: temporalPullBackStart(temporal.client, config.temporal.taskQueue),
        },
        id,
        by,
      ),
    embedder: embedding?.embedder ?? null,
    ...(config.cases.enabled
      ? {
          caseReplies: createCaseReplies({
            pool,
            decisions,
            signals: createTemporalCaseSignals(temporal.client, config.temporal.taskQueue),
            audit: createMariaDbAuditLog(pool),
          }),
        }
      : {}),
    claims: createMariaDbCaseClaims(pool),
    caseRouting: createMariaDbCaseRouting(pool),
    caseSignals: createTemporalCaseSignals(temporal.client, config.temporal.taskQueue),
    readiness: [databaseProbe(pool, config.databaseUrl), temporalNamespaceProbe(temporal.client.connection, config.temporal)],
  });
  try {
    await app.listen({ port: config.inbox.port, host: config.inbox.host });
  } catch (err) {
    await pool.end().catch(() => undefined);
    await temporal.close().catch(() => undefined);
    await embedding?.stop();
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.inbox.port;
  const host = config.inbox.host.includes(':') ? `[${config.inbox.host}]` : config.inbox.host;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    async close() {
      await app.close();
      await pool.end().catch(() => undefined);
      await temporal.close().catch(() => undefined);
      await embedding?.stop();
    },
  };
}

/** `email-rag inbox`: runs until SIGINT/SIGTERM. */
export async function runInbox(config: Config): Promise<void> {
  const inbox = await startInbox(config);
  console.log(`review inbox on ${inbox.url} (auth: ${config.inbox.auth})`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await inbox.close();
}
