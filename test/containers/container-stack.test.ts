// suite: alone — builds images and runs a whole stack of containers on the machine's cores
/**
 * The container stack as a team runs it: the images of the Containerfile built and deploy/compose.yaml
 * started with podman, a mail delivered to a real mailbox (Dovecot) and seen through to a reply at a
 * real SMTP listener; then every container restarted in turn, with nothing lost and nothing sent twice.
 * Prints the image sizes and the time to healthy.
 *
 * Run by `npm run test:containers` (not by `npm test`): test/containers/setup-podman.sh installs
 * podman, podman-compose and a debootstrap base image first. Everything podman-specific is here, the
 * project files stay standard:
 * - the base image is Debian from debootstrap (no registry is reachable), given as BASE_IMAGE;
 * - podman 4.3 runs no health checks on its own (they need systemd timers) and podman-compose skips
 *   `condition: service_healthy` before podman 4.6, so the test runs the checks (`podman healthcheck
 *   run`) and starts the services in the order the compose file's depends_on give;
 * - the mail provider runs on the host: Dovecot and the SMTP listener on loopback, reached by the
 *   containers through relays on the host's address.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { startDovecot, type DovecotServer } from '../support/services/dovecot';
import { freePort } from '../support/services/ports';
import { startSmtpSink, type SmtpSink } from '../support/services/smtp-sink';
import { startTcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
const local = path.join(root, '.local', 'containers');
const PROJECT = 'email-rag-stack-test';
const TAG = 'stack-test';
const COMPOSE = path.join(root, 'deploy', 'compose.yaml');
/** Started in the order of the compose file's depends_on; `init` runs once and exits. */
const SERVERS = ['temporal', 'mariadb'] as const;
const APPS = ['worker', 'inbox', 'codec'] as const;
type Service = (typeof SERVERS)[number] | (typeof APPS)[number] | 'init';

let dir: string;
let dovecot: DovecotServer;
let sink: SmtpSink;
let proxies: Array<{ stop(): Promise<void> }> = [];
let env: NodeJS.ProcessEnv;

/** The host's own address, which the containers reach through their network's gateway. */
function hostAddress(): string {
  for (const [name, addrs] of Object.entries(networkInterfaces())) {
    if (/^(lo|cni-|podman|veth|docker|br-)/.test(name)) continue;
    const v4 = addrs?.find((a) => a.family === 'IPv4' && !a.internal);
    if (v4) return v4.address;
  }
  throw new Error('no non-loopback IPv4 address on this machine for the containers to reach the mail provider');
}

/** A command with the test's environment; rejects with its output when it fails. */
async function sh(cmd: string, args: string[], timeoutMs = 120_000): Promise<string> {
  try {
    const { stdout } = await run(cmd, args, { env, cwd: root, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${e.message}\n${(e.stdout ?? '').slice(-3000)}\n${(e.stderr ?? '').slice(-3000)}`);
  }
}

/** A long command whose output goes to a log file (a build prints thousands of lines). */
function logged(cmd: string, args: string[], logFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    for (const s of [child.stdout, child.stderr]) s.on('data', (c: Buffer) => chunks.push(c));
    child.on('close', (code) => {
      const out = Buffer.concat(chunks);
      writeFileSync(logFile, out);
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code} (log ${logFile}):\n${out.toString('utf8').slice(-4000)}`));
    });
  });
}

const compose = (args: string[], timeoutMs?: number) =>
  sh(path.join(local, 'venv', 'bin', 'podman-compose'), ['-p', PROJECT, '-f', COMPOSE, ...args], timeoutMs);
const container = (service: Service) => `${PROJECT}_${service}_1`;
/** `email-rag …` inside the worker's container, with its configuration and secrets. */
const cli = (args: string[]) => sh('podman', ['exec', container('worker'), 'email-rag', ...args], 120_000);

/** Runs the container's health check until it passes (podman here has no timer that would). */
async function healthy(service: Service, timeoutMs = 240_000): Promise<void> {
  await waitFor(
    `${service} healthy`,
    async () => {
      const r = await run('podman', ['healthcheck', 'run', container(service)], { env }).then(
        () => true,
        () => false,
      );
      return r;
    },
    timeoutMs,
    2_000,
  );
}

async function awaitingDrafts(): Promise<Array<{ emailId: string; id: string; subject: string }>> {
  return JSON.parse(await cli(['drafts', '--json'])) as Array<{ emailId: string; id: string; subject: string }>;
}

async function draftFor(subject: string, timeoutMs = 180_000): Promise<{ emailId: string; id: string }> {
  return waitFor(
    `a draft for "${subject}"`,
    async () => (await awaitingDrafts()).find((d) => d.subject.includes(subject)),
    timeoutMs,
    2_000,
  );
}

function mail(n: number, subject: string): string {
  return [
    `From: Kundin ${n} <kundin${n}@example.org>`,
    'To: Support <support@example.com>',
    `Subject: ${subject}`,
    `Message-ID: <container-stack-${n}-${Date.now()}@example.org>`,
    `Date: ${new Date().toUTCString()}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Guten Tag, ich habe eine Frage zu meiner Bestellung ${1000 + n}. Wann wird sie geliefert?`,
    '',
  ].join('\r\n');
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-containers-'));
  env = { ...process.env, CONTAINERS_CONF: path.join(local, 'containers.conf'), BUILDAH_ISOLATION: 'chroot' };
  await compose(['down', '-v']).catch(() => undefined);

  dovecot = await startDovecot({ dir: path.join(dir, 'dovecot'), users: [{ user: 'support', password: 'container-secret' }] });
  sink = await startSmtpSink();
  const host = hostAddress();
  const imap = await startTcpProxy({ host: dovecot.host, port: dovecot.port }, { listenHost: host });
  const smtp = await startTcpProxy({ host: sink.host, port: sink.port }, { listenHost: host });
  proxies = [imap, smtp];

  const secrets = path.join(dir, 'secrets');
  env = {
    ...env,
    BASE_IMAGE: 'localhost/email-rag-base:bookworm',
    EMAIL_RAG_VERSION: TAG,
    EMAIL_RAG_SECRETS: secrets,
    IMAP_HOST: host,
    IMAP_PORT: String(imap.port),
    IMAP_TLS: 'false',
    IMAP_USER: 'support',
    SMTP_HOST: host,
    SMTP_PORT: String(smtp.port),
    SMTP_FROM: 'Support <support@example.com>',
    INBOX_ADMIN_USER: 'admin',
    // The defaults may be taken on a shared machine (a demo's Web UI and codec server).
    INBOX_HOST_PORT: String(await freePort()),
    TEMPORAL_UI_HOST_PORT: String(await freePort()),
    CODEC_HOST_PORT: String(await freePort()),
  };
  await sh('sh', [path.join(root, 'deploy', 'make-secrets.sh')]);
  writeFileSync(path.join(secrets, 'imap_password'), 'container-secret\n');
  mkdirSync(path.join(dir, 'logs'), { recursive: true });
});

after(async () => {
  if (env) {
    for (const s of [...SERVERS, ...APPS, 'init'] as const) {
      await sh('podman', ['logs', '--tail', '200', container(s)])
        .then((out) => writeFileSync(path.join(local, `${s}.log`), out))
        .catch(() => undefined);
    }
    await compose(['down', '-v'], 300_000).catch((err: unknown) => console.log(`compose down: ${String(err)}`));
  }
  for (const p of proxies) await p.stop();
  await sink?.stop();
  await dovecot?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test(
  'the images build from the Containerfile; the stack starts healthy; a mail becomes a sent reply; restarts lose nothing and send nothing twice',
  { timeout: 60 * 60_000 },
  async () => {
    // --- build (the compose file's build sections: app, temporal, mariadb) ---
    // podman-compose builds every service at once, and four of them build the same app image
    // (BuildKit would merge them; test/static/deploy.test.ts holds their build sections equal):
    // the worker's stands for all four, then the two other images, on the app's cached stages.
    const t0 = Date.now();
    const podmanCompose = path.join(local, 'venv', 'bin', 'podman-compose');
    await logged(podmanCompose, ['-p', PROJECT, '-f', COMPOSE, 'build', 'worker'], path.join(local, 'build-app.log'));
    await logged(podmanCompose, ['-p', PROJECT, '-f', COMPOSE, 'build', 'temporal', 'mariadb'], path.join(local, 'build.log'));
    const buildSeconds = (Date.now() - t0) / 1000;
    const sizes: string[] = [];
    for (const image of ['email-rag', 'email-rag-temporal', 'email-rag-mariadb']) {
      const bytes = Number((await sh('podman', ['image', 'inspect', '--format', '{{.Size}}', `${image}:${TAG}`])).trim());
      sizes.push(`${image} ${(bytes / 1e6).toFixed(0)} MB`);
    }
    console.log(`images: ${sizes.join(', ')} (build ${buildSeconds.toFixed(0)} s)`);

    // --- start in the order of depends_on, as docker compose would ---
    const t1 = Date.now();
    await compose(['up', '-d', '--no-build', ...SERVERS]);
    await Promise.all(SERVERS.map((s) => healthy(s)));
    await compose(['up', '-d', '--no-build', '--no-deps', 'init']);
    const initExit = (await sh('podman', ['wait', container('init')], 600_000)).trim();
    const initLog = await sh('podman', ['logs', container('init')]);
    assert.equal(initExit, '0', `init exited ${initExit}:\n${initLog}`);
    assert.match(initLog, /init: done/);
    await compose(['up', '-d', '--no-build', '--no-deps', ...APPS]);
    await Promise.all(APPS.map((s) => healthy(s)));
    const healthySeconds = (Date.now() - t1) / 1000;
    console.log(`time to healthy: ${healthySeconds.toFixed(0)} s from "up" to every service healthy (init included)`);

    // Nothing but the loopback-published ports of the compose file reaches the host.
    const published = await sh('podman', [
      'ps',
      '--filter',
      `label=io.podman.compose.project=${PROJECT}`,
      '--format',
      '{{.Names}} {{.Ports}}',
    ]);
    assert.doesNotMatch(published, /3306|7233/, published);
    assert.match(published, new RegExp(`127\\.0\\.0\\.1:${env.INBOX_HOST_PORT}->8025`));

    // The first operator exists and a second init leaves it as it is.
    assert.match(initLog, /inbox user admin \(operator\) added/);

    // The first poll takes the mailbox as it is (mail already there is history, not answered):
    // mail for the test comes after it.
    await waitFor(
      'the first successful poll of the mailbox',
      async () => {
        const s = JSON.parse(await cli(['status', '--json'])) as {
          mailboxes: Array<{ folders: Array<{ health: { lastSuccessAt: string | null } | null }> }>;
        };
        return s.mailboxes.some((m) => m.folders.some((f) => f.health?.lastSuccessAt));
      },
      180_000,
      2_000,
    );

    // --- a mail through to a sent reply ---
    await dovecot.deliver('support', mail(1, 'Lieferung Bestellung 1001'));
    const first = await draftFor('Lieferung Bestellung 1001');
    const approved = await cli(['approve', first.emailId, '--draft', first.id, '--by', 'stack-test']);
    assert.match(approved, /approved|sent/i, approved);
    const [reply] = await sink.waitForMessages(1, 180_000);
    assert.match(reply!.raw.toString('utf8'), /^Subject: (Re|AW): Lieferung Bestellung 1001/im);
    assert.deepEqual(reply!.envelope.rcptTo, ['kundin1@example.org']);

    // --- restarts: a mail waits for approval across all of them, another arrives while the worker is down ---
    await dovecot.deliver('support', mail(2, 'Rechnung Bestellung 1002'));
    const second = await draftFor('Rechnung Bestellung 1002');
    for (const service of [...SERVERS, 'worker', ...APPS.filter((s) => s !== 'worker')] as const) {
      const t = Date.now();
      if (service === 'worker') {
        await sh('podman', ['stop', container('worker')], 120_000);
        await dovecot.deliver('support', mail(3, 'Adresse Bestellung 1003'));
        await sh('podman', ['start', container('worker')]);
      } else {
        await sh('podman', ['restart', container(service)], 120_000);
      }
      await healthy(service);
      // The others see it back: the worker through its own reconnects.
      await healthy('worker');
      console.log(`restarted ${service}: healthy again after ${((Date.now() - t) / 1000).toFixed(0)} s`);
    }
    // The restart policy: a worker process that dies is started again by the engine. Killed from
    // the host, as a crash would end it (`podman kill` counts as stopping it by hand, as in Docker).
    const initPid = (await sh('podman', ['inspect', '--format', '{{.State.Pid}}', container('worker')])).trim();
    const [workerPid] = readFileSync(`/proc/${initPid}/task/${initPid}/children`, 'utf8').trim().split(/\s+/);
    process.kill(Number(workerPid), 'SIGKILL');
    await waitFor(
      'the worker started again by its restart policy',
      async () => {
        const [running, restarts] = (
          await sh('podman', ['inspect', '--format', '{{.State.Running}} {{.RestartCount}}', container('worker')])
        )
          .trim()
          .split(' ');
        return running === 'true' && Number(restarts) >= 1;
      },
      120_000,
      1_000,
    );
    await healthy('worker');

    // The waiting draft survived every restart, the mail that came while the worker was down was taken.
    const third = await draftFor('Adresse Bestellung 1003');
    assert.equal((await awaitingDrafts()).find((d) => d.emailId === second.emailId)?.id, second.id);
    await cli(['approve', second.emailId, '--draft', second.id, '--by', 'stack-test']);
    await sink.waitForMessages(2, 180_000);
    // A while for any resend to show; nothing may come.
    await new Promise((r) => setTimeout(r, 15_000));
    assert.deepEqual(sink.counts(), { received: 2, duplicates: 0 });
    const status = JSON.parse(await cli(['status', '--json'])) as {
      emails: Record<string, number>;
      sends: Record<string, number>;
      sendsInDoubt: number;
      deadLetters: number;
    };
    assert.equal(status.emails.sent, 2, JSON.stringify(status));
    assert.equal(status.emails.awaiting_approval, 1, JSON.stringify(status));
    assert.equal(status.sends.sent, 2, JSON.stringify(status));
    assert.equal(status.sendsInDoubt, 0);
    assert.equal(status.deadLetters, 0);
    assert.ok(third.emailId);
    // Temporal kept the finished workflow of the first mail in its SQLite file across its restart.
    const described = await sh('podman', [
      'exec',
      container('temporal'),
      'temporal',
      'workflow',
      'describe',
      '--address',
      '127.0.0.1:7233',
      '--workflow-id',
      first.emailId,
      '--output',
      'json',
    ]);
    assert.match(described, /"status":\s*"(WORKFLOW_EXECUTION_STATUS_)?COMPLETED"/);
  },
);
