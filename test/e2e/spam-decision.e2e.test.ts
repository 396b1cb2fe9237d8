/**
 * "This is spam" on the review page and on the command line, end to end: the real worker with the
 * prebuilt workflow bundle, the Temporal dev server, MariaDB, the review inbox over HTTP, the
 * `email-rag` binary and a real spamd. A waiting mail marked as spam ends rejected without a send,
 * with its audit rows, and spamd's Bayes database holds it as spam; a second mark is refused with
 * the decision that stands.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config';
import { createTemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { EMAIL_AUDIT_EVENTS } from '../../src/email/email.contract';
import { stateQuery } from '../../src/email/email.workflow';
import { TRIAGE_AUDIT_EVENTS } from '../../src/triage/triage.contract';
import { createSpamdLearner } from '../../src/triage/spam-scorer.spamd';
import { inboxOnDatabase, listenLocally } from '../support/inbox-app';
import { startSpamd, type Spamd } from '../support/services/spamd';
import { auditRows } from '../support/spam-mail';
import { sampleEmail, type TestStack } from '../support/stack';
import { ingestFiles } from '../support/cli-run';
import { waitFor } from '../support/wait';
import { useWorkerStack } from '../support/worker-stack';

const run = promisify(execFile);
let stack: TestStack;
let client: Client;
let spamd: Spamd;
let spamdDir: string;
let app: FastifyInstance;
let base: string;

useWorkerStack((s) => ({ stack, client } = s), {
  stack: async () => {
    spamdDir = mkdtempSync(path.join(os.tmpdir(), 'spamd-'));
    spamd = await startSpamd({ dir: spamdDir });
    return { env: { TRIAGE_SPAMD: spamd.address } };
  },
  then: async (s) => {
    await s.stack.db.pool.query(`INSERT INTO inbox_users (name, password_hash, role) VALUES ('rita', 'x', 'reviewer')`);
    const config = loadConfig({ ...s.stack.env, INBOX_AUTH: 'header' }, { imap: false });
    app = await inboxOnDatabase(config, s.stack.db.pool, { decisions: createTemporalDecisions(s.client) });
    base = await listenLocally(app);
  },
  cleanup: async () => {
    await app?.close();
    await spamd?.stop();
    if (spamdDir) rmSync(spamdDir, { recursive: true, force: true });
  },
});

/** Imports mails with the CLI; returns the email ids in file order. */
const ingest = (files: Array<[string, string | Buffer]>): Promise<string[]> => ingestFiles(stack.env, stack.dir, files);

async function row(id: string) {
  const rows = (await stack.db.pool.query('SELECT status, status_reason FROM emails WHERE id = ?', [id])) as Array<{
    status: string;
    status_reason: string | null;
  }>;
  return rows[0];
}

/** The draft the workflow waits for a decision on. */
const waitingDraft = (id: string) =>
  waitFor(
    `${id} waits for a decision`,
    async () => {
      const w = (await client.workflow.getHandle(id).query(stateQuery)).waitingFor;
      return w && 'draftId' in w ? w.draftId : undefined;
    },
    120_000,
  );

/** A reviewer's session on one email's page: posts with its CSRF token, reads the flash. */
async function reviewer(id: string, lang = 'en') {
  const headers = { 'x-forwarded-user': 'rita', 'accept-language': lang };
  const res = await fetch(`${base}/email/${encodeURIComponent(id)}`, { headers, redirect: 'manual' });
  const html = await res.text();
  const token = /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
  let cookie = res.headers.get('set-cookie')?.split(';')[0] ?? '';
  return {
    html,
    post: async (action: string, fields: Record<string, string>) => {
      const r = await fetch(`${base}${action}`, {
        method: 'POST',
        headers: { ...headers, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, ...fields }),
        redirect: 'manual',
      });
      cookie = r.headers.get('set-cookie')?.split(';')[0] ?? cookie;
      return r;
    },
    flash: async () => {
      const page = await (await fetch(`${base}/email/${encodeURIComponent(id)}`, { headers: { ...headers, cookie } })).text();
      return /<span class="flash-message">([^<]*)<\/span>/.exec(page)?.[1]?.replace(/&#39;/g, "'") ?? '';
    },
  };
}

test('marked as spam on the review page: rejected, nothing sent, audited, spamd learnt it; a second mark is refused', async () => {
  const raw = sampleEmail({
    from: 'Gewinnspiel <gewinn@lottery.example>',
    subject: 'Ihr Gewinn wartet',
    messageId: '<spam-decision-1@lottery.example>',
  });
  const [id] = await ingest([['gewinn.eml', raw]]);
  const draftId = await waitingDraft(id!);

  const page = await reviewer(id!, 'de');
  assert.match(page.html, /<button type="submit" id="mark-spam">Spam<\/button>/);
  assert.match(page.html, /der Spamfilter lernt diese Mail als Spam/);
  const res = await page.post(`/email/${encodeURIComponent(id!)}/spam`, { draftId });
  assert.equal(res.status, 303);
  assert.equal(await page.flash(), `reject: draft ${draftId} rejected: marked as spam (rejected)`);

  assert.equal((await client.workflow.getHandle(id!).result()).status, 'rejected');
  assert.deepEqual({ ...(await row(id!)) }, { status: 'rejected', status_reason: 'marked as spam by rita' });
  const sends = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM send_attempts WHERE email_id = ?', [id])) as Array<{
    n: number | bigint;
  }>;
  assert.equal(Number(sends[0]?.n), 0, 'nothing sent');
  assert.deepEqual(
    (await auditRows(stack.db.pool, id!, EMAIL_AUDIT_EVENTS.spamMarked)).map((r) => r.actor),
    ['rita'],
  );
  // The workflow ends after the filter learnt it: its row is there.
  const learned = await auditRows(stack.db.pool, id!, TRIAGE_AUDIT_EVENTS.spamLearned);
  assert.equal(learned.length, 1);
  assert.match(learned[0]!.message, /learned it as spam \(rita's decision\)$/);
  const stored = (await stack.db.pool.query('SELECT raw FROM raw_messages WHERE email_id = ?', [id])) as Array<{ raw: Buffer }>;
  assert.equal(await createSpamdLearner({ host: spamd.host, port: spamd.port, timeoutMs: 30_000 }).learn(stored[0]!.raw, 'spam'), 'known');

  // The page someone left open: the second mark meets the first.
  const again = await page.post(`/email/${encodeURIComponent(id!)}/spam`, { draftId });
  assert.equal(again.status, 303);
  assert.equal(await page.flash(), 'reject refused: the email was marked as spam by rita and is rejected');
});

test('email-rag reject --spam: the same decision from the command line; a second one exits 5 with the reason', async () => {
  const [id] = await ingest([
    [
      'cli.eml',
      sampleEmail({ from: 'Angebot <deal@offers.example>', subject: 'Nur heute', messageId: '<spam-decision-2@offers.example>' }),
    ],
  ]);
  await waitingDraft(id!);
  const cli = (args: string[]) => run(process.execPath, ['bin/email-rag.js', ...args], { env: { ...process.env, ...stack.env } });
  const first = await cli(['reject', id!, '--spam', '--by', 'ops']);
  assert.match(
    first.stdout,
    new RegExp(`^marked ${id}:draft:1 as spam as ops: draft ${id}:draft:1 rejected: marked as spam \\(status rejected\\)`),
  );
  assert.equal((await client.workflow.getHandle(id!).result()).status, 'rejected');
  await assert.rejects(cli(['reject', id!, '--spam', '--by', 'ops']), (err: Error & { code?: number; stderr?: string }) => {
    assert.equal(err.code, 5);
    assert.match(err.stderr ?? '', /waits for no decision on a draft \(status rejected; it was marked as spam by ops\)/);
    return true;
  });
  await assert.rejects(cli(['reject', id!]), /reject needs --reason "…" \(or --spam\)/);
});
