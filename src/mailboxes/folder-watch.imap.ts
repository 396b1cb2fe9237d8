import type { ImapFlow } from 'imapflow';
import { TransientError } from '../platform/errors';
import { FAILURE_TYPES } from '../platform/contract';
import type { FolderWatch, FolderWatchEvents, FolderWatchOptions, NewMessages } from './folder-watch.port';
import { newImapClient, type ImapLogin } from './client.imap';
import { classifyImapError, type ImapSettings } from './imap-connection.imap';

/**
 * IDLE is ended and re-entered this often: a server may drop a session idle for 30 minutes
 * (RFC 2177), and each restart is traffic that proves the connection still works.
 */
const IDLE_RESTART_MS = 60_000;
/** Silence longer than this (two missed IDLE restarts) is a dead connection, e.g. a cut without RST. */
const SOCKET_TIMEOUT_MS = 150_000;

/**
 * One IMAP connection per watch, read-only, held in IDLE by imapflow (auto-IDLE right after the
 * folder is selected); an `exists` event with a larger count is new mail. The connection is the
 * watcher's own, not one of the Mailbox adapter's pooled sessions: it stays open for the whole
 * watch and must not hold up polls and fetches.
 */
export function createImapFolderWatch(settings: ImapSettings): FolderWatch {
  const login: ImapLogin = {
    host: settings.host,
    port: settings.port,
    tls: settings.tls,
    user: settings.user,
    password: settings.password,
  };
  const session = (accessToken: string | undefined) =>
    newImapClient(
      { ...login, accessToken },
      { connectMs: 30_000, socketMs: SOCKET_TIMEOUT_MS, idleRestartMs: IDLE_RESTART_MS, idleAtOnce: true },
    );
  /** Connected and the folder open; an OAuth2 token the server refuses is renewed once, as for polls. */
  const open = async (folder: string): Promise<ImapFlow> => {
    const token = settings.tokens ? await settings.tokens.get() : undefined;
    let client = session(token);
    try {
      await client.connect();
    } catch (err) {
      client.close();
      if (!(token && settings.tokens && (err as { authenticationFailed?: boolean }).authenticationFailed))
        throw classifyImapError(err, `watching ${folder}`, settings.hints);
      client = session(await settings.tokens.renew(token));
      await client.connect().catch((again: unknown) => {
        client.close();
        throw classifyImapError(again, `watching ${folder}`, settings.hints);
      });
    }
    try {
      await client.mailboxOpen(folder, { readOnly: true });
    } catch (err) {
      client.close();
      throw classifyImapError(err, `watching ${folder}`, settings.hints);
    }
    return client;
  };
  return {
    async watch(folder: string, signal: AbortSignal, events: FolderWatchEvents, options?: FolderWatchOptions): Promise<void> {
      if (signal.aborted) return;
      const client = await open(folder);
      const closed = new Promise<'closed'>((resolve) => client.once('close', () => resolve('closed')));
      const aborted = new Promise<'aborted'>((resolve) => signal.addEventListener('abort', () => resolve('aborted'), { once: true }));
      const report = reporter(client, events, options);
      client.on('exists', (data: { count: number; prevCount: number }) => {
        if (data.count > data.prevCount) report();
      });
      events.onConnected();
      const end = await Promise.race([closed, aborted]);
      if (end === 'aborted') {
        // A polite LOGOUT when the server still answers; close() when it does not within a moment.
        await Promise.race([client.logout().catch(() => undefined), new Promise((r) => setTimeout(r, 2_000).unref())]);
        client.close();
        return;
      }
      throw new TransientError(`IMAP connection watching ${folder} of ${settings.user} was closed`, FAILURE_TYPES.imapUnavailable);
    },
  };
}

/**
 * Reports each growth of the folder. With `identify`, the new messages' Message-IDs are read first,
 * by UID above the highest one already reported (sequence numbers move when messages are removed),
 * one read at a time in arrival order. A read that fails or finds nothing reports new mail without
 * them: the watcher then wakes the poll as it would without `identify`.
 */
function reporter(client: ImapFlow, events: FolderWatchEvents, options?: FolderWatchOptions): () => void {
  if (!options?.identify) return () => events.onNewMail();
  const box = client.mailbox;
  let next = box && typeof box === 'object' ? box.uidNext : undefined;
  let chain: Promise<void> = Promise.resolve();
  const newMessages = async (): Promise<NewMessages | undefined> => {
    if (next === undefined) return undefined;
    const from = next;
    const messageIds: Array<string | null> = [];
    // "n:*" also matches the last message when its UID is below n, hence the filter.
    for await (const msg of client.fetch(`${from}:*`, { uid: true, envelope: true }, { uid: true })) {
      if (msg.uid < from) continue;
      messageIds.push(msg.envelope?.messageId ?? null);
      next = Math.max(next ?? 0, msg.uid + 1);
    }
    return messageIds.length > 0 ? { messageIds } : undefined;
  };
  return () => {
    chain = chain.then(newMessages).then(
      (found) => events.onNewMail(found),
      () => events.onNewMail(),
    );
  };
}
