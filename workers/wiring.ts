import { createSpamdLearner, createSpamdScorer } from '../src/triage';
import { createMariaDbKnownSenders } from '../src/triage/index.adapters';
import { TAKEN_FOR_REAL_STATUSES } from '../src/email';
import { createDraftMeasure } from '../src/shadow';
import { createMariaDbShadowEvidence } from '../src/shadow/index.adapters';
import type { Client } from '@temporalio/client';
import type { ActivityDeps } from '../activities';
import {
  createMailboxDirectory,
  createMariaDbMailboxHealth,
  createMariaDbWatermarkStore,
  createImapFolderWatch,
  createMariaDbWatcherHealth,
  createTemporalPollTrigger,
} from '../src/mailboxes/index.adapters';
import {
  createOAuthTokenProvider,
  type IdleDeps,
  describeSecret,
  type MailboxEntry,
  describeOAuth,
  type AccessTokenProvider,
} from '../src/mailboxes';
import { createMariaDbAuditLog } from '../src/platform/audit-log.mariadb';
import { createMariaDbAutonomyStore } from '../src/autonomy/index.adapters';
import { createTemporalAutoApprover } from '../src/autonomy';
import { createMariaDbReplayEvidence, createMariaDbReplayStore } from '../src/replay/index.adapters';
import {
  createMariaDbBounceLedger,
  createMariaDbOutsideReplies,
  createMariaDbDraftStore,
  createMariaDbMessageStore,
  createMariaDbSendLedger,
  createTemporalSignals,
  createTemporalStarter,
  starterLimits,
  createTemporalDecisions,
} from '../src/email/index.adapters';
import { createMariaDbRetentionStore } from '../src/privacy/index.adapters';
import { createMariaDbJobLedger } from '../src/platform/job-ledger.mariadb';
import { createMariaDbAttachmentStore } from '../src/attachments/index.adapters';
import { createAttachmentReader } from '../src/attachments';
import { createMariaDbDraftClaimStore, createOpenAiDrafter, createMariaDbApprovedExamples } from '../src/drafting/index.adapters';
import { createOfflineDrafter, DRAFT_STATUS } from '../src/drafting';
import { createPool, type Pool } from '../src/platform/pool.mariadb';
import { type KnowledgeSyncResult, type Embedder, readKnowledgeFolder } from '../src/retrieval';
import { buildIndex, sharedEmbedder, syncKnowledgeFolder, remoteEmbedder } from '../src/retrieval/index.adapters';
import { createMariaDbGuidanceStore } from '../src/guidance/index.adapters';
import { createTemporalInspector } from '../src/operations/index.adapters';
import { FAILURE_TYPES } from '../src/platform/contract';
import {
  createCaseReplies,
  createMariaDbCaseStore,
  createMariaDbCaseSummaryStore,
  createMariaDbCaseRouting,
  createTemporalCaseSignals,
} from '../src/cases/index.adapters';
import type { Config } from '../src/config';
import { ConfigError, PermanentError, errorMessage } from '../src/platform/errors';
import { createLogger } from '../src/platform/logger';
import type { SecretRef } from '../src/platform/secret-ref';
import type { JobLedger } from '../src/platform/job-queue';
import { buildCaseDeadlinePorts } from './case-deadline-ports';

export interface Dependencies {
  activities: ActivityDeps;
  jobs: JobLedger;
  /** Turns passages and queries into vectors; undefined with EMBEDDER=off (words only). */
  embedder?: Embedder;
  /** Indexes the knowledge folder (KNOWLEDGE_DIR) as it is now; null when none is configured. */
  syncKnowledge(): Promise<(KnowledgeSyncResult & { skipped: string[] }) | null>;
  close(): Promise<void>;
}

/** Builds every adapter from one validated config; `close` releases them on shutdown. */
export function buildDependencies(
  config: Config,
  client: Client,
  /**
   * `eagerStarts`: the client shares the worker's native connection, so the poll's starts may be eager.
   * `embedder`: the one the worker started (src/retrieval/embedder.ts); when not given, EMBEDDER=remote's
   * is built here and the other modes have none (a local service is started only by the worker).
   */
  options: { eagerStarts?: boolean; embedder?: Embedder | undefined } = {},
): Dependencies {
  const started = 'embedder' in options ? options.embedder : remoteEmbedder(config);
  // One embedder for the index, the draft step's checks and the replay: one limit, one memory of vectors.
  const embedder = started && sharedEmbedder(config, started);
  const pool = createPool(config.databaseUrl);
  // Adapters per mailbox, built when a mailbox is first used: one bad entry stops only itself.
  const readSecret = (ref: SecretRef) => config.readSecret(ref);
  const tokens = createOAuthTokenProvider({ readSecret, logger: createLogger('oauth') });
  const mailboxes = createMailboxDirectory(config.mailboxes, { readSecret, tokens });
  const drafter =
    config.llm.mode === 'openai' && config.llm.baseUrl
      ? createOpenAiDrafter({
          baseUrl: config.llm.baseUrl,
          apiKey: config.llm.apiKey,
          model: config.llm.model,
          timeoutMs: config.llm.timeoutMs,
        })
      : createOfflineDrafter({ minAnswerCosine: config.llm.offlineMinCosine });
  const jobs = createMariaDbJobLedger(pool);
  const messages = createMariaDbMessageStore(pool);
  const audit = createMariaDbAuditLog(pool);
  const index = buildIndex(config, pool, messages, audit, embedder);
  const caseSignals = createTemporalCaseSignals(client, config.temporal.taskQueue);
  const attachmentText = createAttachmentReader(config.attachments);
  const guidance = createMariaDbGuidanceStore(pool);
  const outsideReplies = createMariaDbOutsideReplies(pool);
  const activities: ActivityDeps = {
    mailboxes,
    health: createMariaDbMailboxHealth(pool),
    messages,
    audit,
    drafts: createMariaDbDraftStore(pool),
    draftClaims: createMariaDbDraftClaimStore(pool),
    sends: createMariaDbSendLedger(pool),
    bounces: createMariaDbBounceLedger(pool),
    outsideReplies,
    draftMeasure: createDraftMeasure({ store: createMariaDbShadowEvidence(pool), embedder, audit }),
    watermarks: createMariaDbWatermarkStore(pool),
    index,
    embedder,
    drafter,
    guidance,
    approvedExamples: createMariaDbApprovedExamples(pool),
    starter: createTemporalStarter(client, config.temporal.taskQueue, { ...starterLimits(config), eager: options.eagerStarts ?? false }),
    inspector: createTemporalInspector(client),
    signals: createTemporalSignals(client),
    jobs,
    idle: { ...idleDependencies(config, client, pool, tokens), ownReplies: { ours: (ids) => outsideReplies.oursAmong(ids) } },
    ...(config.cases.enabled
      ? {
          case: { cases: createMariaDbCaseStore(pool), caseSignals, windowDays: config.cases.windowDays },
          caseRouting: { cases: createMariaDbCaseRouting(pool), rules: config.routing?.rules ?? [] },
          caseReplies: createCaseReplies({ pool, decisions: createTemporalDecisions(client), signals: caseSignals, audit }),
          caseSummaries: createMariaDbCaseSummaryStore(pool),
        }
      : {}),
    knowledge: config.context.knowledgeDir ? { sync: () => syncKnowledgeFolder(config, pool, index) } : undefined,
    caseDeadlines: buildCaseDeadlinePorts(pool, mailboxes, config.businessHolidays),
    autonomy: {
      store: createMariaDbAutonomyStore(pool, createMariaDbReplayEvidence(pool)),
      approver: createTemporalAutoApprover(createTemporalDecisions(client)),
      policy: config.autonomy,
    },
    retention: { store: createMariaDbRetentionStore(pool), settings: config.retention, index, audit },
    ...(config.spamd ? { spamScorer: createSpamdScorer(config.spamd) } : {}),
    ...(config.spamd?.learn ? { spamLearner: createSpamdLearner(config.spamd) } : {}),
    knownSenders: createMariaDbKnownSenders(pool, { handledStatuses: TAKEN_FOR_REAL_STATUSES, sentDraft: DRAFT_STATUS.sent }),
    replay: {
      store: createMariaDbReplayStore(pool),
      drafter,
      embedder,
      guidance,
      mailboxLanguage: (id) => {
        try {
          return mailboxes.get(id).entry.language;
        } catch {
          // A run of a mailbox this worker does not serve: the mail's own language decides.
          return undefined;
        }
      },
      // Read per pair: the folder as it is now; which files a replayed mail may use is decided by their dates.
      knowledgeFiles: () => (config.context.knowledgeDir ? readKnowledgeFolder(config.context.knowledgeDir).files : []),
      ranking: { method: config.retrieval.method, minCosine: config.retrieval.minCosine, contextChars: config.llm.contextChars },
      categories: config.categories,
      examples: config.draftExamples,
    },
    attachments: createMariaDbAttachmentStore(pool),
    attachmentText,
    settings: {
      maxMessageBytes: config.imap.maxMessageBytes,
      pollBatchSize: config.imap.pollBatchSize,
      importHistory: config.imap.importHistory,
      backlogLimit: config.imap.backlogLimit,
      intakeSlots: config.worker.concurrency.mailIo,
      triage: config.triage,
      replyLimitPerHour: config.replyLimitPerHour,
      threadJoinOrganisation: config.context.threadJoinOrganisation,
      injectionGuard: { intents: config.guard.intents, threshold: config.guard.intentThreshold },
      contextChars: config.llm.contextChars,
      summaryTimeoutMs: config.llm.summaryTimeoutMs,
      categories: config.categories,
      draftExamples: config.draftExamples,
    },
  };
  return {
    activities,
    jobs,
    embedder,
    syncKnowledge: () => syncKnowledgeFolder(config, pool, index),
    async close() {
      await mailboxes.close();
      await attachmentText.close();
      await pool.end().catch(() => undefined);
    },
  };
}

/** Push intake: each folder's IDLE connection with its mailbox's account, the poll trigger and the watcher rows. */
function idleDependencies(config: Config, client: Client, pool: Pool, tokens: AccessTokenProvider): IdleDeps {
  const password = (entry: MailboxEntry): string | undefined => {
    if (!entry.imap.password) return undefined;
    try {
      return config.readSecret(entry.imap.password);
    } catch (err) {
      const why = err instanceof ConfigError ? err.message : `${describeSecret(entry.imap.password)} cannot be read: ${errorMessage(err)}`;
      throw new PermanentError(`mailbox "${entry.id}": IMAP password unavailable: ${why}`, FAILURE_TYPES.mailboxSecret);
    }
  };
  return {
    enabled: config.imap.idle,
    folderWatch: (entry) =>
      createImapFolderWatch({
        host: entry.imap.host,
        port: entry.imap.port,
        tls: entry.imap.tls,
        user: entry.imap.user,
        password: password(entry),
        tokens: entry.imap.oauth ? tokens.source({ mailboxId: entry.id, user: entry.imap.user, oauth: entry.imap.oauth }) : undefined,
        hints: {
          folder: `check imap.folders of mailbox "${entry.id}"`,
          login: entry.imap.oauth
            ? `check imap.user and the app's access to mailbox "${entry.id}" (${describeOAuth(entry.imap.oauth)})`
            : `check imap.user and imap.password (${describeSecret(entry.imap.password)}) of mailbox "${entry.id}"`,
        },
      }),
    pollTrigger: createTemporalPollTrigger(client),
    health: createMariaDbWatcherHealth(pool),
  };
}
