// suite: alone — builds images and runs a whole stack of containers on the machine's cores
/**
 * The container stack as a team runs it in its first month: the images of the Containerfile built
 * and deploy/compose.yaml (with docker-compose.temporal.yml) started with podman, the mailboxes
 * served by a registry file alone — one with a password, one signed in with OAuth2 (`mailboxes
 * authorize` against the identity provider double, its refresh token rotating on a volume) —, a
 * mail delivered to a real mailbox (Dovecot) and seen through to a reply at a real SMTP listener;
 * every container restarted in turn with nothing lost and nothing sent twice; the worker stopped
 * and its alert seen at a webhook (Prometheus and Alertmanager of the monitoring profile); images
 * rebuilt and containers recreated with the OAuth2 mailbox still signed in; one rollback to the
 * previous image tag; the backup service's backup of the running stack (a mail waiting), the whole
 * stack deleted with its volumes, the backup restored into a fresh one (the OAuth2 mailbox, whose
 * refresh token in the backup the provider has retired since, found by `mailboxes check` and signed
 * in again before the intake resumes) and the waiting mail approved: every reply sent once. Prints
 * the image sizes and the times to healthy, to alert and to restore.
 *
 * Run by `npm run test:containers` (not by `npm test`): test/containers/setup-podman.sh installs
 * podman, podman-compose and a debootstrap base image first. Everything podman-specific is here, the
 * project files stay standard:
 * - the base image is Debian from debootstrap (no registry is reachable), given as BASE_IMAGE; the
 *   official Prometheus and Alertmanager images are stood in for by Debian's packages
 *   (test/containers/monitoring.Containerfile), given as PROMETHEUS_IMAGE and ALERTMANAGER_IMAGE;
 * - podman 4.3 runs no health checks on its own (they need systemd timers) and podman-compose skips
 *   `condition: service_healthy` before podman 4.6, so the test runs the checks (`podman healthcheck
 *   run`) and starts the services in the order the compose file's depends_on give;
 * - podman-compose resolves an included file's paths from the including file's folder (Docker
 *   Compose from the included file's own): EMAIL_RAG_TEMPORAL_CONTEXT says so;
 * - the mail provider and the identity provider run on the host: Dovecot, the SMTP listener and the
 *   identity provider double on loopback, reached by the containers through relays on the host's
 *   address (the identity provider behind TLS with a test CA the containers are given).
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startIdentityProviderDouble, type IdentityProviderDouble } from '../doubles/identity-provider-double';
import { startDovecot, type DovecotServer } from '../support/services/dovecot';
import { freePort } from '../support/services/ports';
import { startSmtpSink, type SmtpSink } from '../support/services/smtp-sink';
import { startTcpProxy } from '../support/tcp-proxy';
import { makeTestPki } from '../support/tls-certs';
import { waitFor } from '../support/wait';
import { startAlertWebhook, webhookAlertmanagerConfig } from './support/alert-webhook';
import { PROJECT, hostAddress, local, mail, podmanStack, root } from './support/podman-stack';
import { startTlsFront } from './support/tls-front';
import {
  ANNA,
  APPS,
  MONITORING,
  SERVERS,
  TAG,
  authorizeAnna,
  backupAndRestore,
  buildImages,
  firstPollDone,
  rollBackOnce,
  startStackInOrder,
  upgradeKeepsTheSignIn,
  workerDeathPagesSomeone,
  type FirstMonth,
} from './support/first-month';

let dir: string;
let dovecot: DovecotServer;
let sink: SmtpSink;
let idp: IdentityProviderDouble;
let webhook: Awaited<ReturnType<typeof startAlertWebhook>>;
let stoppers: Array<{ stop(): Promise<void> }> = [];
let env: NodeJS.ProcessEnv | undefined;
const stack = podmanStack(() => env ?? process.env);
const { sh, compose, container, cli, healthy, draftFor, awaitingDrafts } = stack;
let ctx: FirstMonth;

function registry(host: string, imapPort: number, smtpPort: number, idpPort: number): string {
  const idpUrl = `https://${host}:${idpPort}`;
  return `version: 1
mailboxes:
  - id: support
    imap: { host: ${host}, port: ${imapPort}, tls: false, user: support, password: { file: /run/secrets/imap_password } }
    smtp: { host: ${host}, port: ${smtpPort}, tls: false, from: 'Support <support@example.com>' }
  - id: anna
    imap:
      host: ${host}
      port: ${imapPort}
      tls: false
      user: ${ANNA}
      auth:
        type: oauth2
        provider: microsoft-delegated
        tenant: example.test
        tokenUrl: ${idpUrl}/token
        deviceAuthorizationUrl: ${idpUrl}/devicecode
        clientId: desktop
        refreshToken: { file: /app/state/tokens/anna.token }
    smtp: { host: ${host}, port: ${smtpPort}, tls: false, from: ${ANNA}, auth: imap }
`;
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-containers-'));
  env = { ...process.env, CONTAINERS_CONF: path.join(local, 'containers.conf'), BUILDAH_ISOLATION: 'chroot' };
  await compose(['--profile', 'monitoring', 'down', '-v'], 300_000).catch(() => undefined);

  const host = hostAddress();
  idp = await startIdentityProviderDouble();
  idp.addClient('desktop');
  dovecot = await startDovecot({
    dir: path.join(dir, 'dovecot'),
    users: [
      { user: 'support', password: 'container-secret' },
      { user: ANNA, password: 'unused' },
    ],
    oauth2: { introspectionUrl: idp.introspectionUrl },
  });
  sink = await startSmtpSink();
  const imap = await startTcpProxy({ host: dovecot.host, port: dovecot.port }, { listenHost: host });
  const smtp = await startTcpProxy({ host: sink.host, port: sink.port }, { listenHost: host });
  mkdirSync(path.join(dir, 'pki'));
  const pki = makeTestPki(path.join(dir, 'pki'), 'idp.example.test', { ip: host });
  const idpUrl = new URL(idp.tokenUrl);
  const idpFront = await startTlsFront({
    listenHost: host,
    target: { host: idpUrl.hostname, port: Number(idpUrl.port) },
    cert: pki.serverCert,
    key: pki.serverKey,
  });
  webhook = await startAlertWebhook(host);
  stoppers = [imap, smtp, idpFront, webhook];

  // The team's configuration folder (read-only in the containers): the registry and the CA.
  const config = path.join(dir, 'config');
  mkdirSync(config, { recursive: true });
  chmodSync(config, 0o755);
  writeFileSync(path.join(config, 'mailboxes.yaml'), registry(host, imap.port, smtp.port, idpFront.port), { mode: 0o644 });
  writeFileSync(path.join(config, 'ca.pem'), readFileSync(pki.caCert), { mode: 0o644 });
  writeFileSync(path.join(dir, 'alertmanager.yml'), webhookAlertmanagerConfig(webhook.url), { mode: 0o644 });
  mkdirSync(path.join(dir, 'alertmanager-secrets'), { recursive: true });
  // The backups on the host, where they outlive the stack (`down -v`); written by the app's user.
  const backups = path.join(dir, 'backups');
  mkdirSync(backups);
  chownSync(backups, 10001, 10001);

  const secrets = path.join(dir, 'secrets');
  env = {
    ...env,
    BASE_IMAGE: 'localhost/email-rag-base:bookworm',
    EMAIL_RAG_VERSION: TAG,
    EMAIL_RAG_SECRETS: secrets,
    EMAIL_RAG_CONFIG: config,
    EMAIL_RAG_TEMPORAL_CONTEXT: '..',
    MAILBOXES_FILE: '/app/config/mailboxes.yaml',
    NODE_EXTRA_CA_CERTS: '/app/config/ca.pem',
    PROMETHEUS_IMAGE: `localhost/email-rag-test-prometheus:${TAG}`,
    ALERTMANAGER_IMAGE: `localhost/email-rag-test-alertmanager:${TAG}`,
    ALERTMANAGER_CONFIG: path.join(dir, 'alertmanager.yml'),
    ALERTMANAGER_SECRETS: path.join(dir, 'alertmanager-secrets'),
    INBOX_ADMIN_USER: 'admin',
    // The defaults may be taken on a shared machine (a demo's Web UI and codec server).
    INBOX_HOST_PORT: String(await freePort()),
    TEMPORAL_UI_HOST_PORT: String(await freePort()),
    CODEC_HOST_PORT: String(await freePort()),
    EMAIL_RAG_BACKUPS: backups,
  };
  await sh('sh', [path.join(root, 'deploy', 'make-secrets.sh')]);
  writeFileSync(path.join(secrets, 'imap_password'), 'container-secret\n');
  ctx = { stack, env: () => env!, dovecot, idp, webhook, backups };
});

after(async () => {
  if (env) {
    for (const s of [...SERVERS, ...APPS, 'init', 'backup', ...MONITORING]) {
      // The processes log to stderr, which `podman logs` hands on as its own stderr.
      await sh('sh', ['-c', `podman logs --tail 300 ${container(s)} 2>&1`])
        .then((out) => writeFileSync(path.join(local, `${s}.log`), out))
        .catch(() => undefined);
    }
    await compose(['--profile', 'monitoring', 'down', '-v'], 300_000).catch((err: unknown) => console.log(`compose down: ${String(err)}`));
  }
  for (const p of stoppers) await p.stop();
  await sink?.stop();
  await dovecot?.stop();
  await idp?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test(
  'the stack of the first month: built, healthy, mail to a sent reply from the registry alone, restarts, an alert at the webhook, an upgrade that keeps the OAuth2 sign-in, a rollback, a backup restored into a fresh stack: every reply once',
  { timeout: 60 * 60_000 },
  async () => {
    await buildImages(ctx);
    const t1 = Date.now();
    const initLog = await startStackInOrder(ctx);
    console.log(`time to healthy: ${((Date.now() - t1) / 1000).toFixed(0)} s from "up" to every service healthy (init included)`);
    await compose(['--profile', 'monitoring', 'up', '-d', '--no-build', '--no-deps', ...MONITORING]);

    // Nothing but the loopback-published ports of the compose file reaches the host.
    const published = await sh('podman', [
      'ps',
      '--filter',
      `label=io.podman.compose.project=${PROJECT}`,
      '--format',
      '{{.Names}} {{.Ports}}',
    ]);
    assert.doesNotMatch(published, /3306|7233/, published);
    assert.match(published, new RegExp(`127\\.0\\.0\\.1:${env!.INBOX_HOST_PORT}->8025`));
    // The first operator exists and a second init leaves it as it is.
    assert.match(initLog, /inbox user admin \(operator\) added/);

    // The registry alone serves the mailboxes; anna signs in with OAuth2, its refresh token rotating.
    idp.setRotation(true);
    await authorizeAnna(ctx);
    // The first poll takes each mailbox as it is (mail already there is history): mail comes after it.
    await firstPollDone(ctx, 'support');
    await firstPollDone(ctx, 'anna');

    // --- a mail through to a sent reply; anna's mail to a draft ---
    await dovecot.deliver('support', mail(1, 'Lieferung Bestellung 1001'));
    await dovecot.deliver(ANNA, mail(11, 'Anna Frage 1011', ANNA));
    const first = await draftFor('Lieferung Bestellung 1001');
    await draftFor('Anna Frage 1011');
    const approved = await cli(['approve', first.emailId, '--draft', first.id, '--by', 'stack-test']);
    assert.match(approved, /approved|sent/i, approved);
    const [reply] = await sink.waitForMessages(1, 180_000);
    assert.match(reply!.raw.toString('utf8'), /^Subject: (Re|AW): Lieferung Bestellung 1001/im);
    assert.deepEqual(reply!.envelope.rcptTo, ['kundin1@example.org']);
    // The worker asked the stack's spamd (TRIAGE_SPAMD, on by default), which found the mail clean.
    // spamd logs to stderr, which `podman logs` passes on as its own stderr.
    assert.match(await sh('sh', ['-c', `podman logs ${container('spamd')} 2>&1`]), /spamd: clean message \([-\d.]+\/[\d.]+\)/);

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

    await workerDeathPagesSomeone(ctx);
    await upgradeKeepsTheSignIn(ctx);
    await rollBackOnce(ctx);

    // A mail waits for approval through a backup, the stack's deletion and the restore.
    await dovecot.deliver('support', mail(5, 'Umtausch Bestellung 1005'));
    const fifth = await draftFor('Umtausch Bestellung 1005');
    await backupAndRestore(ctx, fifth);
    await cli(['approve', fifth.emailId, '--draft', fifth.id, '--by', 'stack-test']);
    await sink.waitForMessages(3, 180_000);

    // A while for any resend to show; nothing may come: every reply once, across all of it.
    await new Promise((r) => setTimeout(r, 15_000));
    const { received, duplicates } = sink.counts();
    assert.deepEqual({ received, duplicates }, { received: 3, duplicates: 0 });
    const status = JSON.parse(await cli(['status', '--json'])) as {
      emails: Record<string, number>;
      sends: Record<string, number>;
      sendsInDoubt: number;
      deadLetters: number;
    };
    assert.equal(status.emails.sent, 3, JSON.stringify(status));
    assert.equal(status.sends.sent, 3, JSON.stringify(status));
    assert.equal(status.sendsInDoubt, 0);
    assert.equal(status.deadLetters, 0, await cli(['dlq', 'list']).catch((e: unknown) => String(e)));
  },
);
