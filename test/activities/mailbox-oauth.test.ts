/**
 * A mailbox whose OAuth2 sign-in is refused (refresh token revoked) stops alone: its poll fails
 * fast and for good with MAILBOX_AUTH_EXPIRED, which poll health, `email-rag status` /
 * `mailboxes check`, the operating figures and the ops page's alerts show; a password mailbox
 * beside it keeps taking mail in; a new refresh token in the file heals it at the next poll.
 * Real Dovecot (oauth2 passdb) and MariaDB; the identity provider is a double.
 */
import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { createMariaDbOperatingFigures } from '../../src/operations/operating-figures.mariadb';
import { readMetrics } from '../../src/operations/operations.mariadb';
import { createPool } from '../../src/platform/pool.mariadb';
import { QUEUE_STATUS } from '../../src/platform/job-queue';
import { mailboxesCheck, mailboxesList, pollHealthLine } from '../../src/mailboxes/mailboxes.cli';
import { loadConfig, type Config } from '../../src/config';
import { EmailRagError } from '../../src/platform/errors';
import { imapEmailId } from '../../src/email/email-input';
import { startIdentityProviderDouble, type IdentityProviderDouble } from '../doubles/identity-provider-double';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { activityHarness } from './support';

const ANNA = 'anna@example.test';
let idp: IdentityProviderDouble;
let stack: TestStack;
let h: ReturnType<typeof activityHarness>;
let config: Config;
let env: Record<string, string>;
let tokenFile: string;

before(async () => {
  idp = await startIdentityProviderDouble();
  stack = await startStack({
    temporal: false,
    extraUsers: [{ user: ANNA, password: 'unused' }],
    dovecotOAuth2: { introspectionUrl: idp.introspectionUrl },
  });
  idp.addClient('desktop', 'desktop-secret');
  tokenFile = path.join(stack.dir, 'anna.token');
  writeFileSync(tokenFile, `${idp.issueRefreshToken('desktop', ANNA)}\n`, { mode: 0o600 });
  const registry = path.join(stack.dir, 'mailboxes.yaml');
  writeFileSync(
    registry,
    `version: 1
mailboxes:
  - id: support
    imap: { user: ${MAILBOX_USER}, password: { env: SUPPORT_PW } }
    smtp: { from: ${MAILBOX_USER} }
  - id: anna
    imap:
      user: ${ANNA}
      auth:
        type: oauth2
        provider: microsoft-delegated
        tenant: example.test
        tokenUrl: ${idp.tokenUrl}
        clientId: desktop
        clientSecret: { env: DESKTOP_SECRET }
        refreshToken: { file: ${tokenFile} }
    smtp: { from: ${ANNA}, auth: imap }
`,
  );
  env = { ...stack.env, MAILBOXES_FILE: registry, SUPPORT_PW: MAILBOX_PASSWORD, DESKTOP_SECRET: 'desktop-secret' };
  config = loadConfig(env);
  h = activityHarness(config);
});

after(async () => {
  await h?.close();
  await stack?.stop();
  await idp?.stop();
});

test('a mailbox added before its first sign-in waits without failing: no dead letter, its health says what to run', async () => {
  renameSync(tokenFile, `${tokenFile}.later`);
  const waiting = await h.run('poll-anna-0', h.activities.pollMailbox, { mailboxId: 'anna' });
  assert.equal(waiting.notSignedIn, true);
  assert.deepEqual(waiting.started, []);
  const line = pollHealthLine(
    (await mailboxesList(config)).mailboxes.find((m) => m.id === 'anna')!.polls!.find((p) => p.folder === 'INBOX'),
    'INBOX',
  );
  assert.match(line, /WAITING for its first OAuth2 sign-in: `email-rag mailboxes authorize anna`/);
  const pool = createPool(config.databaseUrl);
  try {
    const [row] = await pool.query<{ n: number }[]>(`SELECT COUNT(*) AS n FROM queue_jobs WHERE status = ?`, [QUEUE_STATUS.dead]);
    assert.equal(Number(row!.n), 0, 'a poll waiting for the sign-in is no dead letter');
  } finally {
    await pool.end();
  }
  // Signed in (the authorize command writes the file): the next test's first poll takes mail in.
  renameSync(`${tokenFile}.later`, tokenFile);
});

test('a revoked refresh token blocks only its mailbox, visibly; the password mailbox goes on; a new token heals it', async () => {
  await stack.dovecot.deliver(ANNA, sampleEmail({ subject: 'Rechnung', messageId: '<anna-1@customer.example>' }));
  await h.run('poll-anna-1', h.activities.pollMailbox, { mailboxId: 'anna' });

  idp.revokeRefreshToken(readFileSync(tokenFile, 'utf8').trim());
  idp.revokeAccessTokens();
  // The worker's idle IMAP session ends (as it does after 30 s): the next poll must log in again.
  await stack.dovecot.kick(ANNA);
  const asked = idp.counts.token.refresh_token ?? 0;
  const err = await h.run('poll-anna-2', h.activities.pollMailbox, { mailboxId: 'anna' }).then(
    () => assert.fail('expected the poll to fail'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof EmailRagError);
  assert.equal(err.code, 'MAILBOX_AUTH_EXPIRED');
  assert.equal(err.errorClass, 'permanent', 'not retried: the provider is not hammered');
  assert.match(err.message, /invalid_grant/);
  assert.equal(idp.counts.token.refresh_token, asked + 1, 'one token request for the failed poll');
  // The same refusal at the next poll: counted in its health, but no second dead letter (the
  // activity returns instead of failing for good once a minute until someone acts).
  const again = await h.run('poll-anna-2-again', h.activities.pollMailbox, { mailboxId: 'anna' });
  assert.equal(again.stillFailing, 'MAILBOX_AUTH_EXPIRED');
  assert.deepEqual(again.started, []);

  // The password mailbox keeps its mail flowing: a new mail is fetched, parsed and indexed.
  await h.run('poll-support-1', h.activities.pollMailbox, { mailboxId: 'support' });
  await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'Lieferung', messageId: '<s-1@customer.example>' }));
  const listing = await h.deps.activities.mailboxes.get('support').imap.listSince('INBOX', 0, 100);
  const uid = listing.messages.at(-1)!.uid;
  const emailId = imapEmailId(MAILBOX_USER, 'INBOX', listing.uidValidity, uid);
  const source = { kind: 'imap' as const, mailboxId: 'support', mailbox: 'INBOX', uidValidity: listing.uidValidity, uid };
  await h.run(emailId, h.activities.fetchEmail, { emailId, source });
  await h.run(emailId, h.activities.parseEmail, { emailId });
  assert.equal((await h.deps.activities.messages.getEmail(emailId))?.subject, 'Lieferung');

  // Visible: poll health (status, mailboxes list), the check, the operating figures and the ops alerts.
  const list = await mailboxesList(config);
  const anna = list.mailboxes.find((m) => m.id === 'anna')!;
  const line = pollHealthLine(
    anna.polls!.find((p) => p.folder === 'INBOX'),
    'INBOX',
  );
  assert.match(line, /BLOCKED, OAuth2 sign-in refused \(2 times in a row\).*MAILBOX_AUTH_EXPIRED.*invalid_grant.*mailboxes authorize anna/);
  assert.match(pollHealthLine(list.mailboxes.find((m) => m.id === 'support')!.polls![0], 'INBOX'), /^INBOX: last success [^;]*$/);
  const [check] = await mailboxesCheck(config, 'anna', env);
  assert.equal(check!.ok, false);
  assert.match(check!.steps[0]!.detail, /^MAILBOX_AUTH_EXPIRED: .*invalid_grant.*sign in again: `email-rag mailboxes authorize anna`/);
  const pool = createPool(config.databaseUrl);
  try {
    const state = await createMariaDbOperatingFigures(pool).state();
    assert.match(state.polls.find((p) => p.mailboxId === 'anna')!.signInRefused ?? '', /invalid_grant/);
    assert.equal(state.polls.find((p) => p.mailboxId === 'support')!.signInRefused, null);
    const metrics = await readMetrics(pool, 60, 60, [
      { id: 'support', folders: ['INBOX'] },
      { id: 'anna', folders: ['INBOX'] },
    ]);
    assert.equal(metrics.alerts.filter((a) => a.includes('OAuth2 sign-in refused')).length, 1);
  } finally {
    await pool.end();
  }

  // Fixed by the operator (a new consent): the next scheduled poll heals it.
  writeFileSync(tokenFile, `${idp.issueRefreshToken('desktop', ANNA)}\n`);
  await h.run('poll-anna-3', h.activities.pollMailbox, { mailboxId: 'anna' });
  const healed = (await mailboxesList(config)).mailboxes.find((m) => m.id === 'anna')!;
  assert.match(pollHealthLine(healed.polls![0], 'INBOX'), /^INBOX: last success [^;]*$/);

  // A refusal after the healing starts a new stretch: the poll fails for good again (a dead letter).
  idp.revokeRefreshToken(readFileSync(tokenFile, 'utf8').trim());
  idp.revokeAccessTokens();
  await stack.dovecot.kick(ANNA);
  await assert.rejects(h.run('poll-anna-4', h.activities.pollMailbox, { mailboxId: 'anna' }), { code: 'MAILBOX_AUTH_EXPIRED' });
});
