import type SMTPConnection from 'nodemailer/lib/smtp-connection';

/** A connected, logged-in SMTP session and what its owner tracks about it. */
export interface SmtpSession {
  conn: SMTPConnection;
  /** Runs one command raced against the connection's 'error' (src/mailboxes/connection.smtp.ts). */
  step<T>(start: (done: (err: unknown, value?: T) => void) => void): Promise<T>;
  /** The last command the client wrote in this session (never stored: AUTH is among them). */
  watcher: { lastCommand: string };
  /** Messages this session carried so far. */
  messages: number;
  openedAt: number;
  /** The server or the network ended it (while idle or not): never handed out again. */
  ended: boolean;
}

/** How many sessions wait for the next message at most (beyond them a finished session says QUIT). */
const MAX_IDLE_SESSIONS = 8;
/** A session carries this many messages, then ends (nodemailer's pool does the same). */
const MAX_MESSAGES_PER_SESSION = 100;
/** A session is not kept longer than this: a login (an OAuth2 token's) is not trusted forever. */
const MAX_SESSION_AGE_MS = 5 * 60_000;
/** An idle session says QUIT after this: a quiet worker holds no SMTP connection. */
const IDLE_QUIT_MS = 10_000;

/**
 * The idle sessions of one SMTP server: a session that carried a message completely (250 after
 * the final dot) waits here for the next one instead of saying QUIT, so a drain of approvals pays
 * connect, greeting and login once per burst instead of once per message. A session that failed in
 * any way is never kept: its owner closes it. A kept session the server ended while it waited is
 * dropped as soon as the connection says so.
 */
export function createSmtpSessions() {
  const idle: Array<{ session: SmtpSession; timer: NodeJS.Timeout }> = [];
  let closed = false;

  const drop = (session: SmtpSession) => {
    const at = idle.findIndex((e) => e.session === session);
    if (at < 0) return;
    clearTimeout(idle[at]!.timer);
    idle.splice(at, 1);
  };

  return {
    /** Marks the session ended when its connection ends (to be called once, when it opens). */
    watch(session: SmtpSession): void {
      const ended = () => {
        session.ended = true;
        drop(session);
      };
      session.conn.once('end', ended);
      session.conn.on('error', ended);
    },

    /** An idle session still open, or none: the caller opens one. */
    take(): SmtpSession | undefined {
      for (let entry = idle.pop(); entry; entry = idle.pop()) {
        clearTimeout(entry.timer);
        if (!entry.session.ended && Date.now() - entry.session.openedAt < MAX_SESSION_AGE_MS) {
          const socket = entry.session.conn._socket;
          if (socket) socket.ref();
          return entry.session;
        }
        entry.session.conn.close();
      }
      return undefined;
    },

    /** After a message went through: kept for the next one, or ended with QUIT. */
    release(session: SmtpSession): void {
      session.messages += 1;
      const spent = session.messages >= MAX_MESSAGES_PER_SESSION || Date.now() - session.openedAt >= MAX_SESSION_AGE_MS;
      if (closed || session.ended || spent || idle.length >= MAX_IDLE_SESSIONS) {
        session.conn.quit();
        return;
      }
      const entry = {
        session,
        timer: setTimeout(() => {
          drop(session);
          session.conn.quit();
        }, IDLE_QUIT_MS),
      };
      // Waiting, it keeps no process alive (a command that sent one mail ends when its work does).
      entry.timer.unref();
      const socket = session.conn._socket;
      if (socket) socket.unref();
      idle.push(entry);
    },

    /** Ends every idle session (the worker stops). */
    close(): void {
      closed = true;
      for (const { session, timer } of idle.splice(0)) {
        clearTimeout(timer);
        session.conn.quit();
      }
    },
  };
}
