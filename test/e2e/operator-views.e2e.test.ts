/**
 * Operators find and act on emails where they already look: `temporal workflow list/count` with
 * the email workflow's search attributes, batch signals by query, and the Temporal Web UI in a
 * real headless Chromium. Real dev server (with its Web UI), worker, MariaDB, Dovecot and a
 * switchable SMTP listener; only the LLM is a test double.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import { ImapFlow } from 'imapflow';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { installSchedules, pollScheduleId, triggerSchedule } from '../../src/operations/schedules';
import { DEFAULT_MAILBOX_ID } from '../../src/mailboxes/mailbox-registry';
import { imapEmailId } from '../../src/email/email-input';
import { OPERATOR_VIEWS, SUGGESTED_COLUMNS, workflowListUrl } from '../../src/operations/operator-views';
import { startSwitchableSmtp, type SwitchableSmtp } from '../support/services/switchable-smtp';
import { chromiumPath, projectRoot, temporalCliPath } from '../support/services/tool-paths';
import type { PollResult } from '../../src/email/email-activities';
import { stateQuery, type EmailWorkflowState } from '../../src/email/email.workflow';
import { currentDraftId } from '../support/decisions';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { useWorkerStack } from '../support/worker-stack';

const run = promisify(execFile);
const ARTIFACTS = path.join(projectRoot, '.local', 'artifacts');
const view = (id: string) => OPERATOR_VIEWS.find((v) => v.id === id)!.query;

let stack: TestStack;
let smtp: SwitchableSmtp;
let client: Client;
let tracker: Server;
const trackerHits: string[] = [];
let trackerUrl: string;
/** Replies to Carl are deferred (451) while this is true: his send rounds fail. */
let deferCarl = true;

/** Email label → workflow id, and back, so failures name emails rather than hashes. */
const ids: Record<string, string> = {};
const labelOf = (id: string) => Object.entries(ids).find(([, v]) => v === id)?.[0] ?? id;

useWorkerStack((s) => ({ stack, client } = s), { stack: stackOptions, then: startTrackerAndSchedules, cleanup: stopSmtpAndTracker });

/** Replies to Carl are deferred and Eva's held, at an SMTP server of the test's own. */
async function stackOptions() {
  smtp = await startSwitchableSmtp();
  smtp.addRule((mail) =>
    deferCarl && mail.rcptTo.includes('carl@customer.example') ? { kind: 'refuse', code: 451, message: 'try later' } : undefined,
  );
  smtp.addRule((mail) => (mail.rcptTo.includes('eva@customer.example') ? { kind: 'hold' } : undefined));
  return {
    temporalUi: true,
    env: {
      // The views of the email workflows, row by row: without cases, so no case workflow joins the lists.
      CASES: 'off',
      SMTP_HOST: smtp.host,
      SMTP_PORT: String(smtp.port),
      SMTP_TIMEOUT_MS: '5000',
      LLM_TIMEOUT_MS: '30000',
      PRIORITY_RULES: 'critical:sender=bernd@customer.example',
    },
  };
}

async function startTrackerAndSchedules(): Promise<void> {
  await installSchedules(client, stack.config);
  // Stands for a remote image a sender plants in a subject: nothing may ever load it.
  tracker = createServer((req, res) => {
    trackerHits.push(req.url ?? '');
    res.end();
  });
  await new Promise<void>((resolve) => tracker.listen(0, '127.0.0.1', resolve));
  trackerUrl = `http://127.0.0.1:${(tracker.address() as AddressInfo).port}`;
}

async function stopSmtpAndTracker(): Promise<void> {
  await smtp?.stop();
  await new Promise((resolve) => tracker?.close(resolve));
}

// --- the real temporal CLI --------------------------------------------------------------------

async function temporal(args: string[]): Promise<string> {
  const { stdout } = await run(temporalCliPath(), [...args, '--address', stack.config.temporal.address, '--namespace', 'default'], {
    maxBuffer: 32 * 1024 * 1024,
  });
  return stdout;
}

async function listIds(query: string): Promise<string[]> {
  const out = (await temporal(['workflow', 'list', '--query', query, '--output', 'json'])).trim();
  const rows = (out ? JSON.parse(out) : []) as Array<{ execution: { workflowId: string } }>;
  return rows.map((r) => labelOf(r.execution.workflowId)).sort();
}

async function count(query: string): Promise<number> {
  return Number((JSON.parse(await temporal(['workflow', 'count', '--query', query, '--output', 'json'])) as { count: string }).count);
}

/**
 * The list for `query` becomes exactly `labels` (visibility trails the workflow by a moment);
 * then it is asserted, so a mismatch shows the difference.
 */
async function expectList(query: string, labels: string[]): Promise<void> {
  const want = [...labels].sort();
  let last: string[] = [];
  await waitFor(
    `${query} to list ${want.join(', ')}`,
    async () => {
      last = await listIds(query);
      return JSON.stringify(last) === JSON.stringify(want);
    },
    90_000,
    500,
  ).catch(() => undefined);
  assert.deepEqual(last, want, `temporal workflow list --query '${query}'`);
}

async function decide(label: string, name: string, input: Record<string, unknown>): Promise<string> {
  return temporal(['workflow', 'update', 'execute', '--workflow-id', ids[label]!, '--name', name, '--input', JSON.stringify(input)]);
}

const state = (label: string) => client.workflow.getHandle(ids[label]!).query(stateQuery) as Promise<EmailWorkflowState>;

async function status(label: string): Promise<string | undefined> {
  const rows = (await stack.db.pool.query('SELECT status FROM emails WHERE id = ?', [ids[label]])) as Array<{ status: string }>;
  return rows[0]?.status;
}

async function pollOnce(): Promise<PollResult> {
  const scheduleId = pollScheduleId(DEFAULT_MAILBOX_ID);
  const schedule = client.schedule.getHandle(scheduleId);
  const known = new Set((await schedule.describe()).info.recentActions.map((a) => a.action.workflow.workflowId));
  await triggerSchedule(client, scheduleId);
  const workflowId = await waitFor(
    'the triggered poll',
    async () => (await schedule.describe()).info.recentActions.map((a) => a.action.workflow.workflowId).find((id) => id && !known.has(id)),
    90_000,
    250,
  );
  return client.workflow.getHandle(workflowId).result() as Promise<PollResult>;
}

// --- mail --------------------------------------------------------------------------------------

/** A real-world critical mail: RFC 2047 encoded subject and name, `Priority: urgent`. */
const URGENT_SUBJECT = 'Dringend: Zahlung fehlgeschlagen – Konto gesperrt';
const urgentRaw = () =>
  sampleEmail({
    from: '=?UTF-8?Q?J=C3=BCrgen_K=C3=B6nig?= <juergen@customer.example>',
    subject: `=?UTF-8?B?${Buffer.from(URGENT_SUBJECT).toString('base64')}?=`,
    messageId: '<urgent-1@customer.example>',
    extra: ['Priority: urgent'],
    body: 'Hallo,\n\nmeine Zahlung ist fehlgeschlagen und mein Konto wurde gesperrt. Bitte helfen Sie mir.\n\nJürgen König',
  });
const hostileSubject = () => `**Rechnung** ![x](${trackerUrl}/p.png) <img src=${trackerUrl}/i.png> [klick](javascript:x)`;

test('list, count and batch signals by query follow the emails through the pipeline, a redraft and failed sends', async () => {
  // IMAP: the first poll connects the mailbox; the next one takes what arrived since.
  assert.deepEqual((await pollOnce()).started, []);
  const imap = new ImapFlow({
    host: stack.dovecot.host,
    port: stack.dovecot.port,
    secure: false,
    auth: { user: MAILBOX_USER, pass: MAILBOX_PASSWORD },
    logger: false,
  });
  await imap.connect();
  try {
    for (const [label, raw] of [
      ['A-urgent-imap', urgentRaw()],
      [
        'F-hostile-imap',
        sampleEmail({ from: 'Fritz <fritz@customer.example>', subject: hostileSubject(), messageId: '<hostile-1@customer.example>' }),
      ],
    ] as const) {
      const appended = await imap.append('INBOX', raw);
      assert.ok(appended && appended.uid);
      ids[label] = imapEmailId(MAILBOX_USER, 'INBOX', Number(appended.uidValidity), appended.uid);
    }
  } finally {
    await imap.logout();
  }
  assert.deepEqual((await pollOnce()).started.map(labelOf).sort(), ['A-urgent-imap', 'F-hostile-imap']);

  // Files: critical by PRIORITY_RULES, normal, low and high by X-Priority.
  const dir = path.join(stack.dir, 'ingest');
  mkdirSync(dir, { recursive: true });
  const files: Array<[string, string]> = [
    [
      'B-critical-file',
      sampleEmail({ from: 'Bernd <bernd@customer.example>', subject: 'Vertrag 778 sofort kündigen', messageId: '<b@customer.example>' }),
    ],
    [
      'C-normal-file',
      sampleEmail({ from: 'Carl <carl@customer.example>', subject: 'Lieferadresse ändern', messageId: '<c@customer.example>' }),
    ],
    [
      'D-low-file',
      sampleEmail({
        from: 'Dora <dora@customer.example>',
        subject: 'Frage zum Katalog',
        messageId: '<d@customer.example>',
        extra: ['X-Priority: 5'],
      }),
    ],
    [
      'E-high-file',
      sampleEmail({
        from: 'Eva <eva@customer.example>',
        subject: 'Rückruf erbeten',
        messageId: '<e@customer.example>',
        extra: ['X-Priority: 1'],
      }),
    ],
  ];
  for (const [label, raw] of files) writeFileSync(path.join(dir, `${label}.eml`), raw);
  const ingested = await run(process.execPath, ['bin/email-rag.js', 'ingest', dir], { env: { ...process.env, ...stack.env } });
  for (const line of ingested.stdout.trim().split('\n')) {
    const [id, outcome, file] = line.split('\t');
    assert.equal(outcome, 'started', line);
    ids[path.basename(file!, '.eml')] = id!;
  }
  const firstSix = ['A-urgent-imap', 'B-critical-file', 'C-normal-file', 'D-low-file', 'E-high-file', 'F-hostile-imap'];
  for (const label of firstSix)
    await waitFor(`${label} awaiting approval`, async () => (await status(label)) === 'awaiting_approval', 120_000);

  // Carl's reply is approved now: its SMTP round fails (451 three times, 30 s + 120 s apart) while the rest goes on.
  await decide('C-normal-file', 'approve', { draftId: await currentDraftId(client, ids['C-normal-file']!), by: 'olga' });

  // The LLM returns no JSON twice: the next email goes to manual_review.
  stack.llm.script(
    { kind: 'content', content: 'no json here', for: 'email_draft' },
    { kind: 'content', content: 'still no json', for: 'email_draft' },
  );
  writeFileSync(
    path.join(dir, 'G.eml'),
    sampleEmail({ from: 'Gustav <gustav@customer.example>', subject: 'Reklamation Bestellung 42', messageId: '<g@customer.example>' }),
  );
  ids['G-manual-review'] = (
    await run(process.execPath, ['bin/email-rag.js', 'ingest', path.join(dir, 'G.eml')], { env: { ...process.env, ...stack.env } })
  ).stdout.split('\t')[0]!;
  await waitFor('G in manual_review', async () => (await status('G-manual-review')) === 'manual_review', 120_000);

  // The views docs/operating.md documents, verbatim.
  await expectList('EmailStatus="awaiting_approval" AND EmailPriority="critical"', ['A-urgent-imap', 'B-critical-file']);
  const waiting = ['A-urgent-imap', 'B-critical-file', 'D-low-file', 'E-high-file', 'F-hostile-imap', 'G-manual-review'];
  await expectList('NeedsHuman=true', waiting);
  await expectList(view('waiting-for-a-person'), waiting);
  await expectList(view('critical-waiting'), ['A-urgent-imap', 'B-critical-file']);
  await expectList(view('manual-review'), ['G-manual-review']);
  await expectList(view('approved-not-sent'), ['C-normal-file']);
  // Mailbox is the registry id: mail polled from IMAP and files imported into it alike.
  await expectList('Mailbox="default"', [...firstSix, 'G-manual-review']);
  await expectList('EmailPriority="high"', ['E-high-file']);
  // `count --group-by` does not exist and the server groups only by ExecutionStatus: one count per status.
  assert.equal(await count('NeedsHuman=true'), 6);
  assert.equal(await count('NeedsHuman=true AND EmailStatus="awaiting_approval"'), 5);
  assert.equal(await count('NeedsHuman=true AND EmailStatus="manual_review"'), 1);

  // A redraft: B gets draft 2 and waits again.
  const firstB = await currentDraftId(client, ids['B-critical-file']!);
  assert.match(await decide('B-critical-file', 'redraft', { draftId: firstB, by: 'olga', reason: 'mehr Details' }), /drafting/);
  await expectList('EmailStatus="awaiting_approval" AND DraftVersion=2', ['B-critical-file']);
  await expectList('EmailStatus="awaiting_approval" AND EmailPriority="critical"', ['A-urgent-imap', 'B-critical-file']);
  const secondB = await currentDraftId(client, ids['B-critical-file']!);
  assert.notEqual(secondB, firstB);
  await decide('B-critical-file', 'approve', { draftId: secondB, by: 'olga' });
  await expectList('EmailStatus="sent"', ['B-critical-file']);
  await expectList('EmailStatus="awaiting_approval" AND EmailPriority="critical"', ['A-urgent-imap']);

  // A send in doubt: the SMTP server never answers Eva's reply after its final dot.
  await decide('E-high-file', 'approve', { draftId: await currentDraftId(client, ids['E-high-file']!), by: 'olga' });
  await expectList(view('sends-in-doubt'), ['E-high-file']);
  const described = await temporal(['workflow', 'describe', '--workflow-id', ids['E-high-file']!]);
  assert.match(described, /StaticSummary +"Rückruf erbeten — Eva \(eva@customer\.example\)"/);

  // Batch approval by query is refused by every workflow, each for itself, and audited: an
  // approval must name the draft the person read, and one input cannot name every email's draft.
  const sentBefore = smtp.received();
  const approving = await temporal([
    'workflow',
    'signal',
    '--query',
    'EmailStatus="awaiting_approval"',
    '--name',
    'approve',
    '--input',
    '{"by":"batch-op"}',
    '--reason',
    'approve all',
    '--yes',
  ]);
  assert.match(approving, /batch/i);
  for (const label of ['A-urgent-imap', 'D-low-file', 'F-hostile-imap']) {
    const refusal = await waitFor(
      `${label} refuses the batch approval`,
      async () => (await state(label)).refusals.find((r) => r.by === 'batch-op'),
      90_000,
      500,
    );
    assert.equal(refusal.decision, 'approve');
    assert.match(refusal.reason, /"draftId" is required/);
  }
  await waitFor(
    'three audited refusals',
    async () => {
      const rows = (await stack.db.pool.query(
        `SELECT email_id FROM audit_log WHERE event_type = 'decision_refused' AND actor = 'batch-op'`,
      )) as Array<{ email_id: string }>;
      return rows.length === 3 && rows.map((r) => labelOf(r.email_id)).sort();
    },
    60_000,
  );
  await expectList('EmailStatus="awaiting_approval"', ['A-urgent-imap', 'D-low-file', 'F-hostile-imap']);
  assert.equal(smtp.received(), sentBefore, 'nothing was sent by the batch');

  // Carl's send round has failed by now (or soon): the approved reply waits for its next round.
  await waitFor(
    'C waits for its next send round',
    async () => (await state('C-normal-file')).waitingFor?.kind === 'send_round',
    400_000,
    1_000,
  );
  await expectList(view('approved-not-sent'), ['C-normal-file']);
  // A batch resend is safe: the draft was approved by a person and the send ledger never sends
  // it twice. Eva's send in doubt refuses it: only a person who checked the SMTP log may decide.
  deferCarl = false;
  await temporal([
    'workflow',
    'signal',
    '--query',
    'EmailStatus="approved"',
    '--name',
    'resend',
    '--input',
    '{"by":"batch-op"}',
    '--reason',
    'SMTP is back',
    '--yes',
  ]);
  await expectList('EmailStatus="sent"', ['B-critical-file', 'C-normal-file']);
  const inDoubtRefusal = await waitFor(
    'E refuses the batch resend',
    async () => (await state('E-high-file')).refusals.find((r) => r.decision === 'resend'),
    90_000,
    500,
  );
  assert.match(inDoubtRefusal.reason, /in doubt/);
  await expectList(view('sends-in-doubt'), ['E-high-file']);

  // The person checked: delivered. Eva's email is sent and leaves every waiting view.
  // Settling a send in doubt names the draft whose send was checked: never a blind batch.
  const blind = await decide('E-high-file', 'markSent', { by: 'olga' }).catch((err: { stderr: string }) => err);
  assert.match((blind as { stderr: string }).stderr, /"draftId" is required/);
  const eva = (await state('E-high-file')).waitingFor;
  assert.equal(eva?.kind, 'send_in_doubt');
  await decide('E-high-file', 'markSent', { draftId: eva!.draftId, by: 'olga', note: 'customer confirmed receipt' });
  await expectList('EmailStatus="sent"', ['B-critical-file', 'C-normal-file', 'E-high-file']);
  await expectList(view('waiting-for-a-person'), ['A-urgent-imap', 'D-low-file', 'F-hostile-imap', 'G-manual-review']);
  await expectList(view('sends-in-doubt'), []);
  assert.equal(await count('NeedsHuman=true'), 4);
  assert.equal(smtp.copies.size, 3, 'one reply each to Bernd, Carl and Eva');
  assert.equal(smtp.received(), 3, 'and no second copy of any');
});

// --- the Web UI in Chromium ----------------------------------------------------------------------

async function frameText(page: Page, selector: string): Promise<{ text: string; frame: Frame }> {
  const handle = await page.waitForSelector(selector, { timeout: 90_000 });
  const frame = await waitFor(`${selector} to load`, async () => (await handle.contentFrame()) ?? undefined, 60_000);
  await frame.waitForSelector('main', { timeout: 60_000 });
  return { text: (await frame.locator('main').innerText()).trim(), frame };
}

test('the Web UI lists the emails with their search attributes and shows summary, details and current details', async () => {
  assert.ok(stack.temporal?.uiUrl, 'the dev server runs its Web UI');
  mkdirSync(ARTIFACTS, { recursive: true });
  const ui = stack.temporal.uiUrl;
  await waitFor('the Web UI', async () => (await fetch(ui).catch(() => null))?.ok, 90_000, 500);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    const context = await browser.newContext({ viewport: { width: 1760, height: 640 } });
    // No internet here (the UI fetches a news feed); anything on this machine stays reachable.
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
    // The views and columns an operator saves once per browser (the UI keeps them in local storage).
    await context.addInitScript(
      ([views, columns]) => {
        // Runs in the page (no DOM types in this project's compiler settings).
        const { localStorage } = globalThis as unknown as { localStorage: { setItem(key: string, value: string): void } };
        localStorage.setItem('saved-workflow-queries', JSON.stringify({ default: views }));
        localStorage.setItem('namespace-workflow-table-columns', JSON.stringify({ default: columns.map((label) => ({ label })) }));
      },
      [OPERATOR_VIEWS.map(({ id, name, query }) => ({ id, name, query })), [...SUGGESTED_COLUMNS]] as const,
    );
    const page = await context.newPage();
    page.setDefaultTimeout(90_000);

    // The list: "Waiting for a person", one row per email with its attributes as columns.
    await page.goto(workflowListUrl(ui, 'default', view('waiting-for-a-person')));
    const rows = page.locator('[data-testid="workflows-summary-configurable-table-row"]');
    await waitFor('four rows', async () => (await rows.count()) === 4, 90_000, 500);
    for (const column of ['EmailStatus', 'EmailPriority', 'NeedsHuman', 'DraftVersion', 'Category']) {
      await page.locator(`[data-testid="workflows-summary-table-header-cell-${column}"]`).waitFor();
    }
    const table = await rows.evaluateAll((trs) =>
      trs.map((tr) =>
        [...tr.querySelectorAll('[data-testid="workflows-summary-table-body-cell"]')].map((td) => (td.textContent ?? '').trim()),
      ),
    );
    // Cells: Status, Workflow ID, EmailStatus, EmailPriority, NeedsHuman, DraftVersion, Category, Start.
    const shown = Object.fromEntries(table.map((cells) => [labelOf(cells[1] ?? ''), cells.slice(2, 6).map((c) => c.toLowerCase())]));
    assert.deepEqual(shown, {
      'A-urgent-imap': ['awaiting_approval', 'critical', 'true', '1'],
      'D-low-file': ['awaiting_approval', 'low', 'true', '1'],
      'F-hostile-imap': ['awaiting_approval', 'normal', 'true', '1'],
      // The drafter's defaults after two invalid answers: a draft a person must rewrite.
      'G-manual-review': ['manual_review', 'normal', 'true', '1'],
    });
    const listShot = path.join(ARTIFACTS, 'webui-waiting-for-a-person.png');
    await page.screenshot({ path: listShot });
    console.log(`screenshot: ${listShot}`);
    // The saved views are offered in the views menu.
    await page.getByRole('button', { name: /Saved Views/ }).click();
    for (const v of OPERATOR_VIEWS) await page.getByText(v.name, { exact: true }).first().waitFor();
    await page.keyboard.press('Escape');

    // The workflow page of the urgent mail: decoded subject and sender, details, current details.
    const a = await client.workflow.getHandle(ids['A-urgent-imap']!).describe();
    await page.goto(`${ui}/namespaces/default/workflows/${encodeURIComponent(a.workflowId)}/${a.runId}/user-metadata`);
    const summary = await frameText(page, 'iframe#user-metadata-summary');
    assert.equal(summary.text, `${URGENT_SUBJECT} — Jürgen König (juergen@customer.example)`);
    const details = await frameText(page, 'iframe#user-metadata-details');
    // The registry id of the mailbox, then its folder and UID.
    assert.match(details.text, /Mailbox: default: INBOX \(UID \d+\)/);
    assert.match(details.text, /Priority at intake: critical/);
    assert.match(details.text, /Message-ID: <urgent-1@customer\.example>/);
    const draftId = await currentDraftId(client, a.workflowId);
    // Current details come from the running workflow (through the worker); the UI may render them in a frame.
    const current = await waitFor(
      'the current details',
      async () => {
        for (const frame of page.frames()) {
          const text = await frame
            .locator('body')
            .innerText()
            .catch(() => '');
          const line = text.split('\n').find((l) => l.includes('awaiting_approval: waiting for approval of draft 1'));
          if (line) return line.trim();
        }
        return undefined;
      },
      90_000,
      500,
    );
    assert.equal(current, `awaiting_approval: waiting for approval of draft 1 — decide on draftId ${draftId}`);
    const detailShot = path.join(ARTIFACTS, 'webui-email-details.png');
    await page.screenshot({ path: detailShot, fullPage: true });
    console.log(`screenshot: ${detailShot}`);

    // A subject full of markup is shown as the text it is: no image, no link, nothing fetched.
    const f = await client.workflow.getHandle(ids['F-hostile-imap']!).describe();
    await page.goto(`${ui}/namespaces/default/workflows/${encodeURIComponent(f.workflowId)}/${f.runId}/user-metadata`);
    const hostile = await frameText(page, 'iframe#user-metadata-summary');
    // Long subjects are cut; what is shown is the subject's own text, markup and all.
    assert.ok(hostile.text.startsWith(hostileSubject().slice(0, 70)), hostile.text);
    assert.ok(hostile.text.endsWith(' — Fritz (fritz@customer.example)'), hostile.text);
    assert.equal(await hostile.frame.locator('img, a, script, strong').count(), 0);
    assert.deepEqual(trackerHits, []);
  } finally {
    await browser?.close();
  }
});
