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
 * previous image tag. Prints the image sizes, the time to healthy and the time to alert.
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
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

const TAG = 'stack-test';
const PREVIOUS = 'stack-test-previous';
const SERVERS = ['temporal', 'mariadb'] as const;
const APPS = ['worker', 'inbox', 'codec'] as const;
const MONITORING = ['mariadb-exporter', 'prometheus', 'alertmanager'] as const;
const ANNA = 'anna@example.test';

let dir: string;
let dovecot: DovecotServer;
let sink: SmtpSink;
let idp: IdentityProviderDouble;
let webhook: Awaited<ReturnType<typeof startAlertWebhook>>;
let stoppers: Array<{ stop(): Promise<void> }> = [];
let env: NodeJS.ProcessEnv | undefined;
const stack = podmanStack(() => env ?? process.env);
const { sh, compose, container, cli, healthy, draftFor, awaitingDrafts } = stack;

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
  };
  await sh('sh', [path.join(root, 'deploy', 'make-secrets.sh')]);
  writeFileSync(path.join(secrets, 'imap_password'), 'container-secret\n');
});

after(async () => {
  if (env) {
    for (const s of [...SERVERS, ...APPS, 'init', ...MONITORING]) {
      await sh('podman', ['logs', '--tail', '200', container(s)])
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

/** The images: the compose file's build sections, and Debian's stand-ins for Prometheus and Alertmanager. */
async function buildImages(): Promise<void> {
  // podman-compose builds every service at once, and four of them build the same app image
  // (BuildKit would merge them; test/static/deploy.test.ts holds their build sections equal):
  // the worker's stands for all four, then the other images, on the app's cached stages.
  const t0 = Date.now();
  await stack.composeLogged(['build', 'worker'], path.join(local, 'build-app.log'));
  await stack.composeLogged(['--profile', 'monitoring', 'build', 'temporal', 'mariadb', 'mariadb-exporter'], path.join(local, 'build.log'));
  for (const target of ['prometheus', 'alertmanager']) {
    await stack.logged(
      'podman',
      [
        'build',
        '--isolation=chroot',
        '--build-arg',
        `BASE_IMAGE=${env!.BASE_IMAGE}`,
        '--target',
        target,
        '-t',
        `localhost/email-rag-test-${target}:${TAG}`,
        '-f',
        path.join(root, 'test', 'containers', 'monitoring.Containerfile'),
        path.join(root, 'test', 'containers'),
      ],
      path.join(local, `build-${target}.log`),
    );
  }
  const sizes: string[] = [];
  for (const image of ['email-rag', 'email-rag-temporal', 'email-rag-mariadb', 'email-rag-mariadb-exporter']) {
    const bytes = Number((await sh('podman', ['image', 'inspect', '--format', '{{.Size}}', `${image}:${TAG}`])).trim());
    sizes.push(`${image} ${(bytes / 1e6).toFixed(0)} MB`);
  }
  console.log(`images: ${sizes.join(', ')} (build ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
}

/** Starts the stack in the order of depends_on, as docker compose would; returns init's log. */
async function startStackInOrder(): Promise<string> {
  await compose(['up', '-d', '--no-build', ...SERVERS]);
  await Promise.all(SERVERS.map((s) => healthy(s)));
  await compose(['up', '-d', '--no-build', '--no-deps', 'init']);
  const initLog = await stack.initDone();
  assert.match(initLog, /init: done/);
  await compose(['up', '-d', '--no-build', '--no-deps', ...APPS]);
  await Promise.all(APPS.map((s) => healthy(s)));
  return initLog;
}

async function firstPollDone(mailboxId: string): Promise<void> {
  await waitFor(
    `the first successful poll of mailbox ${mailboxId}`,
    async () => {
      const s = JSON.parse(await cli(['status', '--json'])) as {
        mailboxes: Array<{ id: string; folders: Array<{ health: { lastSuccessAt: string | null } | null }> }>;
      };
      return s.mailboxes.some((m) => m.id === mailboxId && m.folders.some((f) => f.health?.lastSuccessAt));
    },
    180_000,
    2_000,
  );
}

/** `email-rag mailboxes authorize anna` in the worker's container; the person signs in at the provider. */
async function authorizeAnna(): Promise<void> {
  const authorizing = cli(['mailboxes', 'authorize', 'anna'], 180_000);
  const device = await waitFor('the device code of the sign-in', () => Promise.resolve(idp.lastDevice()), 60_000, 500);
  idp.approveDevice(device.userCode, ANNA);
  assert.match(await authorizing, /refresh token stored in \/app\/state\/tokens\/anna\.token/);
}

test(
  'the stack of the first month: built, healthy, mail to a sent reply from the registry alone, restarts, an alert at the webhook, an upgrade that keeps the OAuth2 sign-in, a rollback',
  { timeout: 60 * 60_000 },
  async () => {
    await buildImages();
    const t1 = Date.now();
    const initLog = await startStackInOrder();
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
    await authorizeAnna();
    // The first poll takes each mailbox as it is (mail already there is history): mail comes after it.
    await firstPollDone('support');
    await firstPollDone('anna');

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

    await workerDeathPagesSomeone();
    await upgradeKeepsTheSignIn();
    await rollBackOnce();

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
    assert.equal(status.sends.sent, 2, JSON.stringify(status));
    assert.equal(status.sendsInDoubt, 0);
    assert.equal(status.deadLetters, 0);
  },
);

/** The worker stopped: Prometheus sees it gone, Alertmanager pages the webhook. */
async function workerDeathPagesSomeone(): Promise<void> {
  await waitFor(
    'Prometheus scraping the worker',
    async () => {
      const out = await sh('podman', [
        'exec',
        container('prometheus'),
        'promtool',
        'query',
        'instant',
        'http://127.0.0.1:9090',
        'up{job="email-rag-worker"}',
      ]).catch(() => '');
      return / => 1 @/.test(out);
    },
    180_000,
    3_000,
  );
  const stopped = Date.now();
  await sh('podman', ['stop', container('worker')], 120_000);
  const notice = await webhook.firing(['EmailRagWorkerDown', 'EmailRagNoWorker'], stopped, 420_000);
  console.log(`time to alert: ${((notice.at - stopped) / 1000).toFixed(0)} s from the worker's stop to ${notice.alertname} at the webhook`);
  await sh('podman', ['start', container('worker')]);
  await healthy('worker');
}

/** Images rebuilt, every app container recreated: the OAuth2 mailbox is still signed in. */
async function upgradeKeepsTheSignIn(): Promise<void> {
  for (const image of ['email-rag']) await sh('podman', ['tag', `${image}:${TAG}`, `${image}:${PREVIOUS}`]);
  const t = Date.now();
  await stack.composeLogged(['build', 'worker'], path.join(local, 'rebuild-app.log'));
  await compose(['up', '-d', '--no-build', '--no-deps', '--force-recreate', 'init']);
  await stack.initDone();
  await compose(['up', '-d', '--no-build', '--no-deps', '--force-recreate', ...APPS]);
  await Promise.all(APPS.map((s) => healthy(s)));
  console.log(`upgrade: images rebuilt and init + apps recreated, healthy after ${((Date.now() - t) / 1000).toFixed(0)} s`);
  // The new worker signed in with the token from the volume, and the provider rotated it again on
  // that refresh (every earlier one is dead): the file holds the one live token of the chain. A
  // token file lost with the old container would have left the mailbox signed out.
  const now = (await sh('podman', ['exec', container('worker'), 'cat', '/app/state/tokens/anna.token'])).trim();
  assert.ok(idp.isRefreshTokenActive(now), 'the token file on the volume holds the live, rotated token');
  // The access tokens the old containers held are no more: the next poll must refresh again.
  idp.revokeAccessTokens();
  await dovecot.kick(ANNA);
  await dovecot.deliver(ANNA, mail(12, 'Anna Frage 1012', ANNA));
  await draftFor('Anna Frage 1012');
}

/** Back to the previous image tag (docs/upgrading.md): init and apps recreated on it; mail still flows. */
async function rollBackOnce(): Promise<void> {
  const t = Date.now();
  const previous = { EMAIL_RAG_VERSION: PREVIOUS };
  await compose(['up', '-d', '--no-build', '--no-deps', '--force-recreate', 'init'], undefined, previous);
  await stack.initDone();
  await compose(['up', '-d', '--no-build', '--no-deps', '--force-recreate', ...APPS], undefined, previous);
  await Promise.all(APPS.map((s) => healthy(s)));
  const image = (await sh('podman', ['inspect', '--format', '{{.ImageName}}', container('worker')])).trim();
  assert.match(image, new RegExp(`${PREVIOUS}$`));
  console.log(`rollback: init + apps on ${PREVIOUS}, healthy after ${((Date.now() - t) / 1000).toFixed(0)} s`);
  await dovecot.deliver('support', mail(4, 'Storno Bestellung 1004'));
  await draftFor('Storno Bestellung 1004');
}
