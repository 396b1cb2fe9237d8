import fs from 'node:fs';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerDataStream, SMTPServerError, SMTPServerSession } from 'smtp-server';
import { freePort } from './ports';

/** One message as the sink accepted it. */
export interface ReceivedMail {
  /** What the client really sent in MAIL FROM / RCPT TO ('' for the null sender). */
  envelope: { mailFrom: string; rcptTo: string[] };
  /** The AUTH user name the client logged in with, when it did. */
  authUser?: string;
  raw: Buffer;
  receivedAt: Date;
}

export interface SmtpSink {
  host: string;
  port: number;
  /** Accepted messages, oldest first (live array); stays empty when started with `keepMessages: false`. */
  messages: ReceivedMail[];
  /**
   * How many messages were accepted, how many of them repeated a Message-ID accepted before, and
   * how many connections clients opened (in every mode).
   */
  counts(): { received: number; duplicates: number; connections: number };
  /**
   * Resolves with the accepted messages once at least `count` were accepted (with `keepMessages:
   * false` an empty array); rejects after `timeoutMs`.
   */
  waitForMessages(count: number, timeoutMs: number): Promise<ReceivedMail[]>;
  stop(): Promise<void>;
  /** Answers the next `n` DATA commands with `code` (e.g. 451 transient, 550 permanent) and `message`. */
  failNext(n: number, code: number, message: string): void;
}

/**
 * Starts a receiving SMTP server on 127.0.0.1 (no TLS, any AUTH accepted) that keeps every message
 * in memory and, when `dir` is given, also as `<dir>/<timestamp>-<n>.eml`. `keepMessages: false`
 * (long benchmarks) keeps only the counts and the Message-IDs seen, so memory does not grow with
 * every raw message.
 */
export async function startSmtpSink(
  opts: {
    port?: number;
    dir?: string;
    keepMessages?: boolean;
    /** Require AUTH XOAUTH2 and check each token with this (an identity provider double's introspection). */
    oauth?: { isActive(token: string, user: string): boolean };
  } = {},
): Promise<SmtpSink> {
  const port = opts.port ?? (await freePort());
  const dir = opts.dir;
  const keep = opts.keepMessages ?? true;
  if (dir) fs.mkdirSync(dir, { recursive: true });
  const messages: ReceivedMail[] = [];
  const seenIds = new Set<string>();
  let duplicates = 0;
  const waiters = new Set<() => void>();
  let failures: { remaining: number; code: number; message: string } | undefined;
  let counter = 0;
  let connections = 0;

  const accept = async (stream: SMTPServerDataStream, session: SMTPServerSession): Promise<void> => {
    const raw = await readAll(stream);
    // A refused message is still read to the end, so the client sees the reply to DATA, not a reset.
    if (failures && failures.remaining > 0) {
      failures.remaining -= 1;
      const err: SMTPServerError = new Error(failures.message);
      err.responseCode = failures.code;
      throw err;
    }
    const mail: ReceivedMail = {
      envelope: {
        mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        rcptTo: session.envelope.rcptTo.map((r) => r.address),
      },
      ...(typeof session.user === 'string' ? { authUser: session.user } : {}),
      raw,
      receivedAt: new Date(),
    };
    counter += 1;
    if (dir) await fs.promises.writeFile(path.join(dir, `${mail.receivedAt.getTime()}-${counter}.eml`), raw);
    const id = messageIdOf(raw) ?? `(none ${counter})`;
    if (seenIds.has(id)) duplicates += 1;
    seenIds.add(id);
    if (keep) messages.push(mail);
    for (const wake of waiters) wake();
  };

  const server = new SMTPServer({
    authOptional: !opts.oauth,
    allowInsecureAuth: true,
    ...(opts.oauth ? { authMethods: ['XOAUTH2'] } : {}),
    disabledCommands: ['STARTTLS'],
    logger: false,
    // stop() should not wait 30 s for a pooled client that keeps its connection open.
    closeTimeout: 1_000,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onAuth(auth, _session, callback) {
      if (opts.oauth) {
        if (auth.method !== 'XOAUTH2' || !opts.oauth.isActive(auth.accessToken ?? '', auth.username ?? ''))
          return callback(null, { data: { status: '401', schemes: 'bearer', scope: 'https://mail.example/' } });
        return callback(null, { user: auth.username });
      }
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    onData(stream, session, callback) {
      accept(stream, session).then(
        () => callback(),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Errors of single connections (client resets) must not crash the test process.
  server.on('error', () => undefined);

  return {
    host: '127.0.0.1',
    port,
    messages,
    counts: () => ({ received: counter, duplicates, connections }),
    waitForMessages(count, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          if (counter < count) return false;
          cleanup();
          resolve(messages.slice());
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`SMTP sink: expected ${count} message(s) within ${timeoutMs} ms, got ${counter}`));
        }, timeoutMs);
        const wake = (): void => void check();
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(wake);
        };
        if (!check()) waiters.add(wake);
      });
    },
    stop() {
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
    failNext(n, code, message) {
      failures = { remaining: n, code, message };
    },
  };
}

/** The Message-ID header of a raw message (from its header block), if it has one. */
function messageIdOf(raw: Buffer): string | undefined {
  const head =
    raw
      .subarray(0, 64 * 1024)
      .toString('latin1')
      .split(/\r?\n\r?\n/)[0] ?? '';
  return /^message-id:\s*(.+)$/im.exec(head)?.[1]?.trim();
}

function readAll(stream: SMTPServerDataStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}
