/**
 * The phases of the container test's first month, each a step a team's platform engineer would
 * take or suffer: the images built, the stack started in order, the worker's death paged, an
 * upgrade, a rollback, a backup and a restore into a fresh stack. They share one context: the
 * podman stack, the mail and identity providers on the host and the alert webhook.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { IdentityProviderDouble } from '../../doubles/identity-provider-double';
import type { DovecotServer } from '../../support/services/dovecot';
import { waitFor } from '../../support/wait';
import type { startAlertWebhook } from './alert-webhook';
import { local, mail, type podmanStack, root } from './podman-stack';

export const TAG = 'stack-test';
export const PREVIOUS = 'stack-test-previous';
export const SERVERS = ['temporal', 'mariadb', 'spamd'] as const;
export const APPS = ['worker', 'inbox', 'codec'] as const;
export const MONITORING = ['mariadb-exporter', 'prometheus', 'alertmanager'] as const;
export const ANNA = 'anna@example.test';

export interface FirstMonth {
  stack: ReturnType<typeof podmanStack>;
  env(): NodeJS.ProcessEnv;
  dovecot: DovecotServer;
  idp: IdentityProviderDouble;
  webhook: Awaited<ReturnType<typeof startAlertWebhook>>;
  /** The host folder the backup service writes to (EMAIL_RAG_BACKUPS). */
  backups: string;
}

const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(0);

/** The images: the compose file's build sections, and Debian's stand-ins for Prometheus and Alertmanager. */
export async function buildImages({ stack, env }: FirstMonth): Promise<void> {
  // podman-compose builds every service at once, and five of them build the same app image
  // (BuildKit would merge them; test/static/deploy.test.ts holds their build sections equal):
  // the worker's stands for all, then the other images, on the app's cached stages.
  const t0 = Date.now();
  await stack.composeLogged(['build', 'worker'], path.join(local, 'build-app.log'));
  await stack.composeLogged(
    ['--profile', 'monitoring', 'build', 'temporal', 'mariadb', 'spamd', 'mariadb-exporter'],
    path.join(local, 'build.log'),
  );
  for (const target of ['prometheus', 'alertmanager']) {
    await stack.logged(
      'podman',
      [
        'build',
        '--isolation=chroot',
        '--build-arg',
        `BASE_IMAGE=${env().BASE_IMAGE}`,
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
  for (const image of ['email-rag', 'email-rag-temporal', 'email-rag-mariadb', 'email-rag-spamd', 'email-rag-mariadb-exporter']) {
    const bytes = Number((await stack.sh('podman', ['image', 'inspect', '--format', '{{.Size}}', `${image}:${TAG}`])).trim());
    sizes.push(`${image} ${(bytes / 1e6).toFixed(0)} MB`);
  }
  console.log(`images: ${sizes.join(', ')} (build ${seconds(t0)} s)`);
}

/** Starts the stack in the order of depends_on, as docker compose would; returns init's log. */
export async function startStackInOrder({ stack }: FirstMonth): Promise<string> {
  await stack.compose(['up', '-d', '--no-build', '--no-deps', ...SERVERS]);
  await Promise.all(SERVERS.map((s) => stack.healthy(s)));
  await stack.compose(['up', '-d', '--no-build', '--no-deps', 'init']);
  const initLog = await stack.initDone();
  assert.match(initLog, /init: done/);
  await stack.compose(['up', '-d', '--no-build', '--no-deps', ...APPS]);
  await Promise.all(APPS.map((s) => stack.healthy(s)));
  return initLog;
}

/** Waits for a successful poll of the mailbox (after `since`, a time in ms, when given). */
export async function firstPollDone({ stack }: FirstMonth, mailboxId: string, since = 0): Promise<void> {
  await waitFor(
    `a successful poll of mailbox ${mailboxId}`,
    async () => {
      const s = JSON.parse(await stack.cli(['status', '--json'])) as {
        mailboxes: Array<{ id: string; folders: Array<{ health: { lastSuccessAt: string | null } | null }> }>;
      };
      const after = (at: string | null | undefined) => !!at && Date.parse(at) > since;
      return s.mailboxes.some((m) => m.id === mailboxId && m.folders.some((f) => after(f.health?.lastSuccessAt)));
    },
    180_000,
    2_000,
  );
}

/** `email-rag mailboxes authorize anna` in the worker's container; the person signs in at the provider. */
export async function authorizeAnna({ stack, idp }: FirstMonth): Promise<void> {
  const before = idp.lastDevice();
  const authorizing = stack.cli(['mailboxes', 'authorize', 'anna'], 180_000);
  const device = await waitFor(
    'the device code of the sign-in',
    () => Promise.resolve(idp.lastDevice() !== before ? idp.lastDevice() : undefined),
    60_000,
    500,
  );
  idp.approveDevice(device.userCode, ANNA);
  assert.match(await authorizing, /refresh token stored in \/app\/state\/tokens\/anna\.token/);
}

/** The worker stopped: Prometheus sees it gone, Alertmanager pages the webhook. */
export async function workerDeathPagesSomeone({ stack, webhook }: FirstMonth): Promise<void> {
  await waitFor(
    'Prometheus scraping the worker',
    async () => {
      const out = await stack
        .sh('podman', [
          'exec',
          stack.container('prometheus'),
          'promtool',
          'query',
          'instant',
          'http://127.0.0.1:9090',
          'up{job="email-rag-worker"}',
        ])
        .catch(() => '');
      return / => 1 @/.test(out);
    },
    180_000,
    3_000,
  );
  const stopped = Date.now();
  await stack.sh('podman', ['stop', stack.container('worker')], 120_000);
  const notice = await webhook.firing(['EmailRagWorkerDown', 'EmailRagNoWorker'], stopped, 420_000);
  console.log(`time to alert: ${((notice.at - stopped) / 1000).toFixed(0)} s from the worker's stop to ${notice.alertname} at the webhook`);
  await stack.sh('podman', ['start', stack.container('worker')]);
  await stack.healthy('worker');
}

/** Images rebuilt, every app container recreated: the OAuth2 mailbox is still signed in. */
export async function upgradeKeepsTheSignIn(ctx: FirstMonth): Promise<void> {
  const { stack, idp, dovecot } = ctx;
  await stack.sh('podman', ['tag', `email-rag:${TAG}`, `email-rag:${PREVIOUS}`]);
  const t = Date.now();
  await stack.composeLogged(['build', 'worker'], path.join(local, 'rebuild-app.log'));
  await stack.compose(['up', '-d', '--no-build', '--no-deps', '--force-recreate', 'init']);
  await stack.initDone();
  await stack.compose(['up', '-d', '--no-build', '--no-deps', '--force-recreate', ...APPS]);
  await Promise.all(APPS.map((s) => stack.healthy(s)));
  console.log(`upgrade: images rebuilt and init + apps recreated, healthy after ${seconds(t)} s`);
  // The new worker signed in with the token from the volume, and the provider rotated it again on
  // that refresh (every earlier one is dead): the file holds the one live token of the chain. A
  // token file lost with the old container would have left the mailbox signed out.
  await firstPollDone(ctx, 'anna', t);
  const now = (await stack.sh('podman', ['exec', stack.container('worker'), 'cat', '/app/state/tokens/anna.token'])).trim();
  assert.ok(idp.isRefreshTokenActive(now), 'the token file on the volume holds the live, rotated token');
  // The access tokens the old containers held are no more: the next poll must refresh again.
  idp.revokeAccessTokens();
  await dovecot.kick(ANNA);
  await dovecot.deliver(ANNA, mail(12, 'Anna Frage 1012', ANNA));
  await stack.draftFor('Anna Frage 1012');
}

/** Back to the previous image tag (docs/upgrading.md): init and apps recreated on it; mail still flows. */
export async function rollBackOnce({ stack, dovecot }: FirstMonth): Promise<void> {
  const t = Date.now();
  const previous = { EMAIL_RAG_VERSION: PREVIOUS };
  await stack.compose(['up', '-d', '--no-build', '--no-deps', '--force-recreate', 'init'], undefined, previous);
  await stack.initDone();
  await stack.compose(['up', '-d', '--no-build', '--no-deps', '--force-recreate', ...APPS], undefined, previous);
  await Promise.all(APPS.map((s) => stack.healthy(s)));
  const image = (await stack.sh('podman', ['inspect', '--format', '{{.ImageName}}', stack.container('worker')])).trim();
  assert.match(image, new RegExp(`${PREVIOUS}$`));
  console.log(`rollback: init + apps on ${PREVIOUS}, healthy after ${seconds(t)} s`);
  await dovecot.deliver('support', mail(4, 'Storno Bestellung 1004'));
  await stack.draftFor('Storno Bestellung 1004');
}

/**
 * A provider that rotates refresh tokens and retires each one at its use (the double does; Okta,
 * Auth0 or Keycloak can be set so) retires the backup's token at the running stack's next refresh:
 * at the latest when its access token runs out, within the hour. Brought about at once, as that
 * hour would: the access tokens revoked and anna's sessions ended, so the worker refreshes.
 */
async function retireTheBackupsSignIn({ stack, idp, dovecot, backups }: FirstMonth, name: string): Promise<void> {
  const files = path.join(backups, name, 'files.tar');
  const inBackup = (await stack.sh('tar', ['-xOf', files, 'app/state/tokens/anna.token'])).trim();
  if (!idp.isRefreshTokenActive(inBackup)) return;
  idp.revokeAccessTokens();
  await dovecot.kick(ANNA);
  await waitFor(
    "the running stack's refresh, which retires the backup's refresh token",
    () => Promise.resolve(!idp.isRefreshTokenActive(inBackup)),
    180_000,
    1_000,
  );
}

/** The complete backups in the host folder, oldest first (named by their UTC time). */
function completeBackups(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return (
    readdirSync(folder)
      .filter((n) => /^\d{4}-\d\d-\d\dT\d{6}Z$/.test(n) && existsSync(path.join(folder, n, 'SHA256SUMS')))
      // The MANIFEST's last line says so: `<time>\tcomplete\t<parts>`.
      .filter((n) => /^\S+\tcomplete\t/m.test(readFileSync(path.join(folder, n, 'MANIFEST'), 'utf8')))
      .sort()
  );
}

/**
 * The backup service's first backup of the running stack (a mail waiting for approval), the
 * provider retiring the backup's refresh token, then everything deleted (`down -v`: containers and
 * volumes), then the restore into a fresh stack as docs/backup.md says: the mailboxes checked and
 * anna signed in again before the intake resumes. The waiting draft is still waiting after it, and
 * anna's mail flows again.
 */
export async function backupAndRestore(ctx: FirstMonth, waiting: { emailId: string; id: string }): Promise<void> {
  const { stack, backups } = ctx;
  const t = Date.now();
  await stack.compose(['up', '-d', '--no-build', '--no-deps', 'backup']);
  const [name] = await waitFor(
    'a complete backup from the backup service',
    () => Promise.resolve(completeBackups(backups)[0]),
    300_000,
    2_000,
  ).then((n) => [n]);
  console.log(`backup: ${name} complete ${seconds(t)} s after the service started`);
  await retireTheBackupsSignIn(ctx, name!);

  const t2 = Date.now();
  await stack.compose(['--profile', 'monitoring', 'down', '-v'], 300_000);
  const volumes = await stack.sh('podman', ['volume', 'ls', '--format', '{{.Name}}']);
  assert.doesNotMatch(volumes, /email-rag-stack-test_(mariadb-data|temporal-data|app-state)/, 'the old stack is gone with its volumes');

  await stack.compose(['up', '-d', '--no-build', '--no-deps', 'mariadb']);
  await stack.healthy('mariadb');
  // As root (docs/backup.md): spamd's Bayes folder goes back to spamd's user.
  const restored = await stack.compose(
    ['run', '--rm', '--no-deps', '--user', 'root', 'backup', 'email-rag-restore', `/backups/${name}`],
    600_000,
  );
  await startStackInOrder(ctx);
  console.log(`restore: from "down -v" to a healthy restored stack in ${seconds(t2)} s`);
  assert.match(restored, /restore/i);
  // Checked before the intake is resumed (docs/backup.md): the backup's sign-in was retired by the
  // provider, the check says so and how to heal it, and anna is signed in again.
  const check = await stack.cli(['mailboxes', 'check', 'anna']).then(
    (out) => assert.fail(`the check passed with a retired refresh token:\n${out}`),
    (err: unknown) => String(err),
  );
  assert.match(check, /MAILBOX_AUTH_EXPIRED: .*invalid_grant.*sign in again: `email-rag mailboxes authorize anna`/);
  await authorizeAnna(ctx);
  // The snapshot holds the intake paused (the backup pauses it): lifted by hand, as the docs say.
  await stack.cli(['intake', 'resume']);
  const drafts = await stack.awaitingDrafts();
  assert.equal(drafts.find((d) => d.emailId === waiting.emailId)?.id, waiting.id, 'the draft that waited survived the restore');
  await ctx.dovecot.deliver(ANNA, mail(13, 'Anna Frage 1013', ANNA));
  await stack.draftFor('Anna Frage 1013');
}
