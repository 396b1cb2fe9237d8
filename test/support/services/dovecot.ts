import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { spawnManaged, tail } from './child-process';
import { freePort, waitForPort } from './ports';
import { dovecotPaths, projectRoot } from './tool-paths';

export interface DovecotUser {
  user: string;
  password: string;
}

export interface DovecotOptions {
  /**
   * Config, state, log and the maildirs live here. The sockets do not: Unix socket paths are
   * limited to 108 bytes, so they go to a short folder under the system temp directory.
   */
  dir: string;
  /** IMAP port on 127.0.0.1; a free one when omitted. */
  port?: number;
  users: DovecotUser[];
  startTimeoutMs?: number;
  /**
   * Also accept OAuth2 logins (Dovecot's oauth2 passdb): tokens are checked by RFC 7662
   * introspection at this URL (a test's identity provider double). `mechanisms`: the SASL
   * mechanisms offered (both by default), so a test can make a client use one of them.
   */
  oauth2?: { introspectionUrl: string; mechanisms?: Array<'xoauth2' | 'oauthbearer'> };
}

export interface DovecotServer {
  host: string;
  port: number;
  configFile: string;
  logFile: string;
  /** Dovecot's base_dir (its sockets): a short folder under the temp directory, removed by stop(). */
  runDir: string;
  /** `doveadm stop`, then wait for the master to exit (SIGTERM/SIGKILL as fallback). */
  stop(): Promise<void>;
  /** Drops one raw RFC 822 message into `mailbox` (default INBOX, created when missing) of `user`, as a delivery would. */
  deliver(user: string, raw: Buffer | string, mailbox?: string): Promise<void>;
  /**
   * Ends every IMAP session of `user` (`doveadm kick`) and returns once Dovecot lists none: kick
   * only signals the imap processes, and one still answers commands until it handles the signal.
   */
  kick(user: string): Promise<void>;
}

/** Who runs what: Dovecot refuses to run mail processes as root. */
interface Identities {
  mailUid: number;
  mailGid: number;
  /** Settings for the unprivileged login/internal processes. */
  settings: string[];
  /** Only root can chroot the login processes. */
  chroot: boolean;
}

/**
 * Starts a throwaway Dovecot IMAP server (plaintext, 127.0.0.1 only) with its own config in
 * `opts.dir`, and resolves once a LOGIN of the first user works. Runs as root (mail processes as
 * the `mail` system user) or as a normal user (everything as that user).
 */
export async function startDovecot(opts: DovecotOptions): Promise<DovecotServer> {
  const tools = dovecotPaths();
  const dir = path.resolve(opts.dir);
  const port = opts.port ?? (await freePort());
  const ids = identities();
  for (const user of opts.users) {
    if (!/^[A-Za-z0-9._@+-]+$/.test(user.user) || /[\n:]/.test(user.password)) {
      throw new Error(`Dovecot test user ${JSON.stringify(user.user)}: name or password has characters a passwd-file cannot hold`);
    }
  }
  const paths = {
    config: path.join(dir, 'dovecot.conf'),
    passwd: path.join(dir, 'passwd'),
    oauth2: path.join(dir, 'dovecot-oauth2.conf.ext'),
    run: shortRunDir(),
    state: path.join(dir, 'state'),
    mail: path.join(dir, 'mail'),
    log: path.join(dir, 'dovecot.log'),
  };

  fs.mkdirSync(dir, { recursive: true });
  for (const sub of [paths.state, paths.mail]) fs.mkdirSync(sub, { recursive: true });
  // The login and auth processes reach their sockets below base_dir (mkdtemp made it 0700).
  fs.chmodSync(paths.run, 0o755);
  fs.writeFileSync(paths.passwd, opts.users.map((u) => `${u.user}:{PLAIN}${u.password}\n`).join(''), { mode: 0o600 });
  if (isRoot()) {
    // The mail processes run as the mail uid and must reach <dir>/mail; mkdtemp made dir 0700.
    makeTraversable(path.dirname(dir), ids.mailUid);
    fs.chmodSync(dir, 0o755);
    fs.chownSync(paths.mail, ids.mailUid, ids.mailGid);
    // The auth process reads the passwd-file as the package's dovecot user.
    const authGid = numericId('-g', 'dovecot');
    if (authGid !== undefined) {
      fs.chownSync(paths.passwd, 0, authGid);
      fs.chmodSync(paths.passwd, 0o640);
    } else {
      fs.chmodSync(paths.passwd, 0o644);
    }
  }
  if (opts.oauth2) {
    // Read by the auth process (the package's dovecot user): no secret in it, world-readable.
    fs.writeFileSync(
      paths.oauth2,
      [
        `introspection_url = ${opts.oauth2.introspectionUrl}`,
        'introspection_mode = post',
        'force_introspection = yes',
        'username_attribute = username',
        'active_attribute = active',
        'active_value = true',
        '',
      ].join('\n'),
      { mode: 0o644 },
    );
  }
  fs.writeFileSync(
    paths.config,
    configText({ port, paths, ids, oauth2: opts.oauth2 ? (opts.oauth2.mechanisms ?? ['xoauth2', 'oauthbearer']) : [] }),
  );

  const proc = spawnManaged(tools.dovecot, ['-F', '-c', paths.config], {
    logFile: path.join(dir, 'dovecot.stderr.log'),
  });
  const timeoutMs = opts.startTimeoutMs ?? 30_000;
  const logTails = (): string => `--- ${paths.log} ---\n${tail(paths.log, 20)}\n--- ${proc.logFile} ---\n${proc.logTail(20)}`;
  try {
    await Promise.race([
      waitForPort('127.0.0.1', port, { timeoutMs, what: 'Dovecot IMAP' }),
      proc.exited.then((code) => Promise.reject(new Error(`dovecot exited early (${code})`))),
    ]);
    const first = opts.users[0];
    if (first) await waitForLogin(port, first, timeoutMs);
  } catch (err) {
    await proc.terminate('SIGTERM', 5_000);
    fs.rmSync(paths.run, { recursive: true, force: true });
    throw new Error(`Dovecot did not start: ${err instanceof Error ? err.message : String(err)}\n${logTails()}`);
  }

  let stopping: Promise<void> | undefined;
  return {
    host: '127.0.0.1',
    port,
    configFile: paths.config,
    logFile: paths.log,
    runDir: paths.run,
    stop() {
      stopping ??= (async () => {
        if (!proc.hasExited()) {
          await run(tools.doveadm, ['-c', paths.config, 'stop']).catch(() => undefined);
          let timer: NodeJS.Timeout | undefined;
          const gaveUp = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 10_000)));
          const exited = await Promise.race([proc.exited.then(() => true), gaveUp]);
          clearTimeout(timer);
          if (!exited) await proc.terminate('SIGTERM', 5_000);
        }
        fs.rmSync(paths.run, { recursive: true, force: true });
      })();
      return stopping;
    },
    async deliver(user, raw, mailbox = 'INBOX') {
      // doveadm save does the userdb lookup and drops to the mail uid by itself.
      const save = () => run(tools.doveadm, ['-c', paths.config, 'save', '-u', user, '-m', mailbox], Buffer.from(raw));
      try {
        await save();
      } catch (err) {
        if (!(err instanceof Error && err.message.includes("Mailbox doesn't exist"))) throw err;
        await run(tools.doveadm, ['-c', paths.config, 'mailbox', 'create', '-s', '-u', user, mailbox]);
        await save();
      }
    },
    async kick(user) {
      const sessionsOf = async () =>
        (await run(tools.doveadm, ['-c', paths.config, 'who', user])).split('\n').some((line) => line.startsWith(`${user} `));
      await run(tools.doveadm, ['-c', paths.config, 'kick', user]).catch(async (err: Error) => {
        // doveadm kick exits non-zero when no session was left to kick (saying so on stdout or stderr,
        // or not at all): only a failure while sessions are still open is one.
        if (!/no users? (were )?kicked|not found/i.test(err.message) && (await sessionsOf())) throw err;
      });
      for (const started = Date.now(); ; await sleep(50)) {
        const who = await run(tools.doveadm, ['-c', paths.config, 'who', user]);
        if (!who.split('\n').some((line) => line.startsWith(`${user} `))) return;
        if (Date.now() - started > 10_000) throw new Error(`${user}'s IMAP sessions still open 10 s after doveadm kick:\n${who}`);
      }
    },
  };
}

/**
 * A fresh folder like /tmp/dc-AbC123: its sockets (e.g. login/imap-urlauth-worker, the longest)
 * stay far below the 108-byte limit however deep the checkout or the server dir is.
 */
function shortRunDir(): string {
  // A TMPDIR deep enough to matter is no help here; /tmp always exists on the systems Dovecot runs on.
  const base = os.tmpdir().length <= 40 ? os.tmpdir() : '/tmp';
  return fs.mkdtempSync(path.join(base, 'dc-'));
}

function configText(o: {
  port: number;
  paths: { passwd: string; oauth2: string; run: string; state: string; mail: string; log: string };
  ids: Identities;
  /** SASL mechanisms checked by the oauth2 passdb; none: password logins only. */
  oauth2: string[];
}): string {
  const { port, paths, ids } = o;
  // With an oauth2 passdb, a userdb lookup (doveadm save) must not consult the passdbs: there is no token.
  const oauth2Passdb =
    o.oauth2.length > 0
      ? `passdb {
  driver = oauth2
  mechanisms = ${o.oauth2.join(' ')}
  args = ${paths.oauth2}
}
`
      : '';
  return `# Throwaway test/demo server written by test/support/services/dovecot.ts; not for real mail.
protocols = imap
listen = 127.0.0.1
base_dir = ${paths.run}
state_dir = ${paths.state}
log_path = ${paths.log}
instance_name = email-rag-${port}
ssl = no
disable_plaintext_auth = no
auth_mechanisms = ${['plain', 'login', ...o.oauth2].join(' ')}
# Tests try wrong passwords on purpose: no failure delay (the per-IP penalty is off below).
auth_failure_delay = 0
mail_location = maildir:${paths.mail}/%u/Maildir
first_valid_uid = ${ids.mailUid}
last_valid_uid = ${ids.mailUid}
first_valid_gid = ${ids.mailGid}
last_valid_gid = ${ids.mailGid}
${ids.settings.join('\n')}

passdb {
  driver = passwd-file
${o.oauth2.length > 0 ? '  mechanisms = plain login\n' : ''}  args = scheme=PLAIN username_format=%u ${paths.passwd}
}
${oauth2Passdb}userdb {
  driver = static
  args = uid=${ids.mailUid} gid=${ids.mailGid} home=${paths.mail}/%u${o.oauth2.length > 0 ? ' allow_all_users=yes' : ''}
}

namespace inbox {
  inbox = yes
  separator = /
  mailbox Sent {
    special_use = \\Sent
    auto = subscribe
  }
}

service anvil {${ids.chroot ? '' : '\n  chroot ='}
  # mode 0 removes the listener, which turns the per-IP auth penalty off.
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}

service imap-login {${ids.chroot ? '' : '\n  chroot ='}
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
`;
}

function identities(): Identities {
  if (isRoot()) {
    // Login and internal processes keep the package's dovenull/dovecot users (the defaults).
    const mailUid = numericId('-u', 'mail') ?? 8;
    const mailGid = numericId('-g', 'mail') ?? 8;
    return { mailUid, mailGid, settings: [], chroot: true };
  }
  const me = os.userInfo();
  const group = groupName(me.gid);
  return {
    mailUid: me.uid,
    mailGid: me.gid,
    // Without root nothing can switch users or chroot: run every process as ourselves.
    settings: [`default_login_user = ${me.username}`, `default_internal_user = ${me.username}`, `default_internal_group = ${group}`],
    chroot: false,
  };
}

/**
 * Every folder above the server dir must be enterable by the mail uid. Folders inside the temp
 * dir or the project (e.g. a 0700 mkdtemp parent) get o+x (enter, not list); anything else
 * (e.g. /root) is left alone and reported.
 */
function makeTraversable(from: string, uid: number): void {
  const ours = [os.tmpdir(), projectRoot].map((p) => path.resolve(p) + path.sep);
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const st = fs.statSync(dir);
    const enterable = st.uid === uid ? (st.mode & 0o100) !== 0 : (st.mode & 0o001) !== 0;
    if (!enterable) {
      if (ours.some((root) => dir.startsWith(root))) {
        fs.chmodSync(dir, (st.mode & 0o7777) | 0o001);
      } else {
        throw new Error(
          `Dovecot's mail processes run as uid ${uid} and cannot enter ${dir} ` +
            `(mode ${(st.mode & 0o777).toString(8)}): put the Dovecot dir under os.tmpdir() or the project`,
        );
      }
    }
    if (dir === path.dirname(dir)) return;
  }
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function numericId(flag: '-u' | '-g', name: string): number | undefined {
  try {
    const n = Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

function groupName(gid: number): string {
  try {
    return execFileSync('id', ['-gn'], { encoding: 'utf8' }).trim() || String(gid);
  } catch {
    return String(gid);
  }
}

/** A LOGIN can fail for a moment after the port opens, while the auth process starts. */
async function waitForLogin(port: number, user: DovecotUser, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new ImapFlow({
      host: '127.0.0.1',
      port,
      secure: false,
      auth: { user: user.user, pass: user.password },
      logger: false,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.logout();
      return;
    } catch (err) {
      client.close();
      if (Date.now() > deadline) {
        throw new Error(`IMAP LOGIN as ${user.user} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      await sleep(250);
    }
  }
}

/** Runs a short command; rejects with its stderr when it fails. */
/** Runs a Dovecot tool; its standard output. */
function run(command: string, args: string[], stdin?: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(command)} ${args.slice(2).join(' ')} failed: ${String(stderr).trim() || err.message}`));
      else resolve(String(stdout));
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(stdin);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
