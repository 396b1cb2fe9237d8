import { FAILURE_TYPES } from '../platform/contract';
import type { ImapFlow } from 'imapflow';
import { PermanentError, TooLargeError, TransientError } from '../platform/errors';
import { priorityFromHeaders } from '../triage';
import type { FolderMark, FoundMessage, ImapConnection, MailboxListing } from './imap-connection.port';
import type { AccessTokenSource } from './access-tokens.port';
import { newImapClient } from './client.imap';

export interface ImapSettings {
  host: string;
  port: number;
  tls: boolean;
  user: string;
  /** Password login; or `tokens` for OAuth2. */
  password?: string;
  tokens?: AccessTokenSource;
  /** Where an operator fixes the account, named in refusals; the single-account variables by default. */
  hints?: { folder: string; login: string };
}

const ENV_HINTS = { folder: 'check IMAP_FOLDER', login: 'check IMAP_USER / IMAP_PASSWORD' };

const BUSY_CODES = new Set(['UNAVAILABLE', 'INUSE']);
const BUSY_TEXT = /maximum number of connections|too many (?:connections|sessions)/i;

/** Maps imapflow failures: bad credentials and refused commands are permanent, the rest transient. */
export function classifyImapError(err: unknown, what: string, hints = ENV_HINTS): Error {
  if (err instanceof PermanentError || err instanceof TransientError) return err;
  const e = err as {
    authenticationFailed?: boolean;
    code?: string;
    response?: unknown;
    responseText?: string;
    serverResponseCode?: string;
    message?: string;
  };
  const detail = e.responseText ?? (typeof e.response === 'string' && e.response ? e.response : undefined) ?? e.message ?? String(err);
  if (e.serverResponseCode === 'NONEXISTENT' || /doesn't exist|does not exist/i.test(detail)) {
    return new PermanentError(`IMAP folder missing during ${what}: ${detail} (${hints.folder})`, FAILURE_TYPES.imapNoMailbox, {
      cause: err,
    });
  }
  // A login refused because the server is busy (Dovecot's per-user connection limit, RFC 5530
  // UNAVAILABLE / INUSE) says nothing about the password: it heals when other sessions end.
  if (e.authenticationFailed && (BUSY_CODES.has(e.serverResponseCode ?? '') || BUSY_TEXT.test(detail))) {
    return new TransientError(`IMAP server busy during ${what}: ${detail}`, FAILURE_TYPES.imapBusy, { cause: err });
  }
  if (e.authenticationFailed) {
    return new PermanentError(`IMAP login refused during ${what}: ${detail} (${hints.login})`, FAILURE_TYPES.imapAuth, {
      cause: err,
    });
  }
  return new TransientError(`IMAP unavailable during ${what}: ${detail}`, FAILURE_TYPES.imapUnavailable, { cause: err });
}

/** Opens a folder read-only; false when the server says it does not exist. */
async function openIfExists(client: ImapFlow, mailbox: string): Promise<boolean> {
  try {
    await client.mailboxOpen(mailbox, { readOnly: true });
    return true;
  } catch (err) {
    const e = err as { serverResponseCode?: string; responseText?: string };
    if (e.serverResponseCode === 'NONEXISTENT' || /doesn't exist|does not exist/i.test(e.responseText ?? '')) return false;
    throw err;
  }
}

/** True when the IMAP server refused the command (NO/BAD): the session itself is alive (a BYE is its end). */
function serverAnswered(err: unknown): boolean {
  const status = (err as { responseStatus?: unknown } | null)?.responseStatus;
  return status === 'NO' || status === 'BAD';
}

/** Logged-in sessions kept for the next operation; more in flight at once get their own. */
const MAX_IDLE_SESSIONS = 8;
/** An idle session is logged out after this; a quiet worker holds no IMAP session for long. */
const IDLE_LOGOUT_MS = 30_000;

/**
 * Sessions are reused: every operation selects its folder afresh (so it sees the mailbox as it is
 * now), but connect, login and logout happen once per burst of work, not once per message. A
 * reused session that turns out dead (server restart, idle cut) is replaced by a new connection
 * once, so a restart costs no retry; every operation here is idempotent.
 */
export function createImapConnection(settings: ImapSettings): ImapConnection {
  const idle: Array<{ client: ImapFlow; timer: NodeJS.Timeout }> = [];
  let closed = false;
  /** The last mark read per folder, for callers that accept an earlier one (folderMark's maxAgeMs). */
  const marks = new Map<string, { at: number; mark: Promise<FolderMark> }>();

  async function open(accessToken: string | undefined): Promise<ImapFlow> {
    const client = newImapClient({ ...settings, accessToken }, { connectMs: 15_000, socketMs: 120_000 });
    await client.connect();
    return client;
  }

  /**
   * With OAuth2, a token the server refuses (revoked, or expired earlier than it said) is
   * replaced once and the login tried once more; a refusal of the new one is the account's.
   */
  async function connect(what: string): Promise<ImapFlow> {
    const token = settings.tokens ? await settings.tokens.get() : undefined;
    try {
      return await open(token);
    } catch (err) {
      if (!(token && settings.tokens && (err as { authenticationFailed?: boolean }).authenticationFailed))
        throw classifyImapError(err, what, settings.hints);
    }
    const renewed = await settings.tokens.renew(token);
    try {
      return await open(renewed);
    } catch (err) {
      throw classifyImapError(err, what, settings.hints);
    }
  }

  function release(client: ImapFlow): void {
    if (closed || !client.usable || idle.length >= MAX_IDLE_SESSIONS) {
      void client.logout().catch(() => client.close());
      return;
    }
    const entry = {
      client,
      timer: setTimeout(() => {
        const at = idle.indexOf(entry);
        if (at >= 0) idle.splice(at, 1);
        void client.logout().catch(() => client.close());
      }, IDLE_LOGOUT_MS),
    };
    entry.timer.unref();
    idle.push(entry);
  }

  function takeIdle(): ImapFlow | undefined {
    for (let entry = idle.pop(); entry; entry = idle.pop()) {
      clearTimeout(entry.timer);
      if (entry.client.usable) return entry.client;
      entry.client.close();
    }
    return undefined;
  }

  async function withClient<T>(what: string, fn: (client: ImapFlow) => Promise<T>): Promise<T> {
    const reused = takeIdle();
    const client = reused ?? (await connect(what));
    try {
      const result = await fn(client);
      release(client);
      return result;
    } catch (err) {
      // A session the server ended while it was idle (BYE, kick, restart) may still look usable for
      // a moment: a failure without a server answer on a reused session counts as its death too.
      const dead = !client.usable || (reused !== undefined && !serverAnswered(err));
      if (dead) client.close();
      else release(client);
      // A session that died while idle says nothing about the server now: one try on a new one.
      if (reused && dead && !(err instanceof PermanentError) && !(err instanceof TooLargeError)) {
        const fresh = await connect(what);
        try {
          const result = await fn(fresh);
          release(fresh);
          return result;
        } catch (again) {
          if (!fresh.usable) fresh.close();
          else release(fresh);
          throw classifyImapError(again, what, settings.hints);
        }
      }
      throw classifyImapError(err, what, settings.hints);
    }
  }

  /** STATUS of a folder (no SELECT): its UIDVALIDITY and UIDNEXT now. */
  function readMark(mailbox: string): Promise<FolderMark> {
    return withClient(`reading the state of ${mailbox}`, async (client) => {
      // STATUS reads the folder's index header: no scan, whatever its size. On the folder this
      // session has selected it answers from the session's view: a NOOP brings that up to date.
      if (client.mailbox && client.mailbox.path === mailbox) await client.noop();
      const st = await client.status(mailbox, { uidNext: true, uidValidity: true });
      if (!st || st.uidNext === undefined || st.uidValidity === undefined) {
        throw new TransientError(`IMAP STATUS of ${mailbox} returned no UIDNEXT/UIDVALIDITY`, FAILURE_TYPES.imapUnavailable);
      }
      return { uidValidity: String(st.uidValidity), uidNext: st.uidNext };
    });
  }

  return {
    listSince(mailbox, afterUid, limit): Promise<MailboxListing> {
      return withClient(`listing ${mailbox}`, async (client) => {
        const box = await client.mailboxOpen(mailbox, { readOnly: true });
        const uidValidity = Number(box.uidValidity);
        const highestUid = Math.max(0, box.uidNext - 1);
        if (box.exists === 0 || highestUid <= afterUid) return { uidValidity, highestUid, messages: [] };
        const messages: MailboxListing['messages'] = [];
        // UIDs first (numbers only), envelopes only for the batch: with thousands of new messages
        // waiting, fetching every envelope on each pass made the listing cost grow with the backlog.
        // "n:*" also matches the last message when its UID is below n, hence the filter.
        const found = (await client.search({ uid: `${afterUid + 1}:*` }, { uid: true })) || [];
        const batch = found
          .filter((uid) => uid > afterUid)
          .sort((a, b) => a - b)
          .slice(0, limit);
        if (batch.length === 0) return { uidValidity, highestUid, messages: [] };
        const query = { uid: true, size: true, envelope: true, headers: ['x-priority', 'importance', 'priority'] };
        for await (const msg of client.fetch(batch, query, { uid: true })) {
          if (msg.uid <= afterUid) continue;
          const headers = msg.headers?.toString('utf8') ?? '';
          const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(headers)?.[1]?.trim();
          messages.push({
            uid: msg.uid,
            size: msg.size ?? 0,
            from: msg.envelope?.from?.[0]?.address?.toLowerCase() ?? null,
            subject: msg.envelope?.subject ?? '',
            fromName: msg.envelope?.from?.[0]?.name ?? null,
            messageId: msg.envelope?.messageId ?? null,
            inReplyTo: msg.envelope?.inReplyTo ?? null,
            headerPriority: priorityFromHeaders({
              xPriority: header('x-priority'),
              importance: header('importance'),
              priority: header('priority'),
            }),
          });
        }
        messages.sort((a, b) => a.uid - b.uid);
        return { uidValidity, highestUid, messages };
      });
    },

    fetchRaw({ mailbox, uidValidity, uid, maxBytes }): Promise<Buffer> {
      return withClient(`fetching UID ${uid} from ${mailbox}`, async (client) => {
        // A reused session keeps the folder selected: a SELECT per message made the server rescan
        // the folder each time (measured on Dovecot: 4.4 ms of its CPU per fetch at 3,000 messages,
        // 0.3 ms without, growing with the folder). A message the session has not seen yet is
        // looked up again after a fresh SELECT before it counts as gone.
        const open = async (fresh: boolean) => {
          const current = client.mailbox;
          const box =
            !fresh && current && current.path === mailbox && current.readOnly
              ? current
              : await client.mailboxOpen(mailbox, { readOnly: true });
          if (Number(box.uidValidity) !== uidValidity) {
            throw new PermanentError(
              `UIDVALIDITY of ${mailbox} changed from ${uidValidity} to ${box.uidValidity}: UID ${uid} no longer names this message`,
              FAILURE_TYPES.uidValidityChanged,
            );
          }
        };
        const lookUp = () => client.fetchOne(String(uid), { uid: true, size: true, envelope: true }, { uid: true });
        await open(false);
        let meta = await lookUp();
        if (!meta) {
          await open(true);
          meta = await lookUp();
        }
        if (!meta) throw new PermanentError(`message UID ${uid} is no longer in ${mailbox}`, FAILURE_TYPES.messageGone);
        const size = meta.size ?? 0;
        if (size > maxBytes) {
          throw new TooLargeError(
            `message UID ${uid} has ${size} bytes, above the limit of ${maxBytes} (MAX_MESSAGE_BYTES); not downloaded`,
            size,
            maxBytes,
            {
              subject: meta.envelope?.subject ?? null,
              from: meta.envelope?.from?.[0]?.address?.toLowerCase() ?? null,
            },
          );
        }
        const full = await client.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
        if (!full || !full.source) throw new PermanentError(`message UID ${uid} vanished while downloading`, FAILURE_TYPES.messageGone);
        return full.source;
      });
    },

    folderMark(mailbox, opts): Promise<FolderMark> {
      const known = marks.get(mailbox);
      if (opts?.maxAgeMs !== undefined && known && Date.now() - known.at <= opts.maxAgeMs) return known.mark;
      const mark = readMark(mailbox);
      // Shared while it is read: a burst of sends asks the server once.
      marks.set(mailbox, { at: Date.now(), mark });
      mark.catch(() => {
        if (marks.get(mailbox)?.mark === mark) marks.delete(mailbox);
      });
      return mark;
    },

    appendOnce(mailbox, raw, messageId, since): Promise<'appended' | 'present'> {
      return withClient(`appending to ${mailbox}`, async (client) => {
        try {
          // Selected already (a reused session): no SELECT, which costs the server a rescan of the folder,
          // but a NOOP, so that the search sees what other sessions (a server filing sent mail) added since.
          const current = client.mailbox;
          if (current && current.path === mailbox && !current.readOnly) await client.noop();
          else await client.mailboxOpen(mailbox);
        } catch {
          await client.mailboxCreate(mailbox);
          await client.mailboxOpen(mailbox);
        }
        const opened = client.mailbox;
        // Only what arrived since the mark: a header search over the whole folder grows with every
        // reply ever filed (12 ms of Dovecot CPU per send at 10,000). A recreated folder is searched whole.
        const range = since && opened && String(opened.uidValidity) === since.uidValidity ? { uid: `${since.uidNext}:*` } : {};
        const found = await client.search({ ...range, header: { 'message-id': messageId } }, { uid: true });
        if (Array.isArray(found) && found.length > 0) return 'present';
        await client.append(mailbox, raw, ['\\Seen']);
        return 'appended';
      });
    },

    findByMessageId(mailbox, messageId, since): Promise<FoundMessage | null> {
      return withClient(`looking up ${messageId} in ${mailbox}`, async (client) => {
        // Read-only: the lookup never changes the folder (no flag is set). A NOOP on a reused
        // session brings in what the provider filed since; a missing folder holds nothing.
        const current = client.mailbox;
        if (current && current.path === mailbox) await client.noop();
        else if (!(await openIfExists(client, mailbox))) return null;
        const opened = client.mailbox;
        if (!opened) return null;
        const uidValidity = String(opened.uidValidity);
        const range = since && uidValidity === since.uidValidity ? { uid: `${since.uidNext}:*` } : {};
        const found = await client.search({ ...range, header: { 'message-id': messageId } }, { uid: true });
        const uids = Array.isArray(found) ? found.filter((uid) => !since || uidValidity !== since.uidValidity || uid >= since.uidNext) : [];
        return uids.length > 0 ? { folder: mailbox, uidValidity, uid: Math.min(...uids) } : null;
      });
    },

    async close(): Promise<void> {
      closed = true;
      await Promise.all(
        idle.splice(0).map(async ({ client, timer }) => {
          clearTimeout(timer);
          await client.logout().catch(() => client.close());
        }),
      );
    },
  };
}
