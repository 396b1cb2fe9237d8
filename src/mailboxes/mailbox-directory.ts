import { FAILURE_TYPES } from '../platform/contract';
import { ConfigError, PermanentError, errorMessage } from '../platform/errors';
import { describeOAuth, type OAuthSettings } from './mailbox-oauth';
import { DEFAULT_MAILBOX_ID, describeSecret, type MailboxEntry, type SecretRef } from './mailbox-registry';
import type { AccessTokenProvider } from './access-tokens.port';
import type { MailSender } from './mail-sender.port';
import type { ImapConnection } from './imap-connection.port';
import type { MailboxDirectory, ServedMailbox } from './mailbox-directory.port';
import { createImapConnection, type ImapSettings } from './imap-connection.imap';
import { createSmtpSender, type SmtpSettings } from './mail-sender.smtp';

export interface MailboxDirectoryOptions {
  /** Reads a secret by reference (Config.readSecret); throws ConfigError naming the reference. */
  readSecret(ref: SecretRef): string;
  /** Access tokens of the mailboxes that sign in with OAuth2 (cached per login in this process). */
  tokens?: AccessTokenProvider;
  /** Adapter factories; the real IMAP and SMTP adapters unless a test swaps them. */
  createImapConnection?: (settings: ImapSettings) => ImapConnection;
  createSender?: (settings: SmtpSettings) => MailSender;
}

/**
 * Every registry entry by id, with its IMAP and SMTP adapters built on first use. A secret that
 * cannot be read fails only the mailbox it belongs to (MAILBOX_SECRET, permanent: nothing heals
 * until an operator sets it), and the error names the entry and the reference, never a value.
 */
export function createMailboxDirectory(entries: MailboxEntry[], opts: MailboxDirectoryOptions): MailboxDirectory {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const served = new Map<string, ServedMailbox>();
  const opened: Array<ImapConnection | MailSender> = [];

  const secret = (entry: MailboxEntry, what: string, ref: SecretRef): string => {
    try {
      return opts.readSecret(ref);
    } catch (err) {
      const why = err instanceof ConfigError ? err.message : `${describeSecret(ref)} cannot be read: ${errorMessage(err)}`;
      throw new PermanentError(`mailbox "${entry.id}": ${what} unavailable: ${why}`, FAILURE_TYPES.mailboxSecret);
    }
  };

  /** Builds the adapter on the first call; a failed build is tried again on the next one. */
  function lazy<T extends object>(build: () => T): () => T {
    let made: T | undefined;
    return () => {
      if (!made) {
        made = build();
        opened.push(made as ImapConnection | MailSender);
      }
      return made;
    };
  }

  function serve(entry: MailboxEntry): ServedMailbox {
    // The single-account variables' mailbox keeps naming the variables its operator sets.
    const pw = entry.imap.password;
    const fromVariables = entry.id === DEFAULT_MAILBOX_ID && pw !== undefined && 'env' in pw && pw.env === 'IMAP_PASSWORD';
    const where = `mailbox "${entry.id}"`;
    const tokensFor = (oauth: OAuthSettings, user: string) => {
      if (!opts.tokens)
        throw new PermanentError(`${where}: OAuth2 sign-in configured, but this process has no token provider`, FAILURE_TYPES.config);
      return opts.tokens.source({ mailboxId: entry.id, user, oauth });
    };
    const imap = lazy(() =>
      (opts.createImapConnection ?? createImapConnection)({
        host: entry.imap.host,
        port: entry.imap.port,
        tls: entry.imap.tls,
        user: entry.imap.user,
        password: pw ? secret(entry, 'IMAP password', pw) : undefined,
        tokens: entry.imap.oauth ? tokensFor(entry.imap.oauth, entry.imap.user) : undefined,
        hints: fromVariables
          ? undefined
          : {
              folder: `check imap.folders and imap.sentFolder of ${where}`,
              login: entry.imap.oauth
                ? `the token was accepted by the identity provider but not by the IMAP server: check imap.user and the app's access to the mailbox (${describeOAuth(entry.imap.oauth)}) of ${where}`
                : `check imap.user and imap.password (${describeSecret(pw)}) of ${where}`,
            },
      }),
    );
    const smtp = lazy(() =>
      (opts.createSender ?? createSmtpSender)({
        host: entry.smtp.host,
        port: entry.smtp.port,
        tls: entry.smtp.tls,
        user: entry.smtp.user,
        password: entry.smtp.password ? secret(entry, 'SMTP password', entry.smtp.password) : undefined,
        tokens: entry.smtp.oauth ? tokensFor(entry.smtp.oauth, entry.smtp.user ?? entry.imap.user) : undefined,
        mechanism: entry.smtp.oauth?.mechanism,
        timeoutMs: entry.smtp.timeoutMs,
      }),
    );
    // Async, so a missing secret is a rejected promise like any other failure of the call.
    const mailbox: ImapConnection = {
      listSince: async (folder, afterUid, limit) => imap().listSince(folder, afterUid, limit),
      fetchRaw: async (ref) => imap().fetchRaw(ref),
      folderMark: async (folder, opts) => imap().folderMark(folder, opts),
      appendOnce: async (folder, raw, messageId, since) => imap().appendOnce(folder, raw, messageId, since),
      findByMessageId: async (folder, messageId, since) => imap().findByMessageId(folder, messageId, since),
      close: async () => undefined,
    };
    const sender: MailSender = {
      send: async (mail, hooks) => smtp().send(mail, hooks),
      close: async () => undefined,
    };
    return { entry, imap: mailbox, sender };
  }

  return {
    list: () => [...entries],
    get(id: string): ServedMailbox {
      const entry = byId.get(id);
      if (!entry) {
        throw new PermanentError(
          `mailbox "${id}" is not in the registry (known: ${[...byId.keys()].join(', ') || 'none'}); ` +
            'restore its entry, or end the email by hand',
          FAILURE_TYPES.unknownMailbox,
        );
      }
      let s = served.get(id);
      if (!s) {
        s = serve(entry);
        served.set(id, s);
      }
      return s;
    },
    async close(): Promise<void> {
      await Promise.allSettled(opened.map((a) => a.close()));
    },
  };
}
