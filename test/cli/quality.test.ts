/**
 * `email-rag quality` as an operator runs it (text and JSON, per group, the gaps with the real
 * embedded embedder and without one), and the same figures on the review inbox's operations
 * page, rendered by the server (table, SVG chart with title and description, gaps).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { assertNoAxeFindings } from '../support/axe-findings';
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import { loadConfig } from '../../src/config';
import type { DraftOutcome } from '../../src/drafting/drafting.contract';
import type { Embedder } from '../../src/retrieval/embedder.port';
import { inboxOnDatabase } from '../support/inbox-app';
import { createTestDatabase } from '../support/database';
import { startEmbedder } from '../support/services/embedder';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let embedderServer: Awaited<ReturnType<typeof startEmbedder>>;

const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY);

async function decided(
  id: string,
  mailbox: string,
  category: string,
  outcome: DraftOutcome,
  at: Date,
  subject = 'Frage',
  text = '',
): Promise<void> {
  await db.pool.query('INSERT INTO emails (id, source, status, mailbox_id, subject, text_body) VALUES (?, ?, ?, ?, ?, ?)', [
    id,
    'file',
    'sent',
    mailbox,
    subject,
    text,
  ]);
  await db.pool.query(
    `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version, decided_at)
     VALUES (?, ?, ?, ?, ?, 'de', 'openai', 'gpt-test', 'v7', ?)`,
    [`${id}:draft:1`, id, outcome, mailbox, category, at],
  );
}

before(async () => {
  db = await createTestDatabase('qualitycli');
  embedderServer = await startEmbedder();
  await decided('a1', 'support', 'billing', 'approved_unchanged', daysAgo(1));
  await decided('a2', 'support', 'billing', 'approved_unchanged', daysAgo(2));
  await decided('a3', 'support', 'billing', 'light_edit', daysAgo(2));
  await decided('a4', 'billing', 'delivery', 'heavy_edit', daysAgo(3), 'Where is my parcel?', 'My package has not arrived yet.');
  await decided(
    'a5',
    'billing',
    'delivery',
    'rejected',
    daysAgo(4),
    'Lieferung kommt nicht an',
    'Mein Paket ist seit zwei Wochen unterwegs.',
  );
  await decided('a6', 'support', 'access', 'heavy_edit', daysAgo(5), 'Passwort vergessen', 'Wie setze ich mein Passwort zurück?');
  // Outside the 30-day window: in --since 90d and nowhere else.
  await decided('old', 'support', 'billing', 'rejected', daysAgo(60));
});
after(async () => {
  await embedderServer?.stop();
  await db?.drop();
});

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/email-rag.js', ...args],
      { env: { ...process.env, DATABASE_URL: db.url, ...env } },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('email-rag quality prints acceptance rates per group over the window, as text and JSON', async () => {
  const text = await cli(['quality', '--by', 'category']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^category\s+decided\s+accepted\s+unchanged/m);
  assert.match(text.stdout, /^billing\s+3\s+100\.0 %\s+2 66\.7 %\s+1 33\.3 %/m);
  assert.match(text.stdout, /^delivery\s+2\s+0\.0 %\s+0 0\.0 %\s+0 0\.0 %\s+1 50\.0 %\s+1 50\.0 %/m);
  assert.match(text.stdout, /^all\s+6\s+50\.0 %/m);
  const json = await cli(['quality', '--by', 'mailbox', '--since', '90d', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const r = JSON.parse(json.stdout) as {
    by: string;
    total: { decided: number; counts: Record<string, number> };
    groups: Array<{ group: string; decided: number }>;
  };
  assert.equal(r.by, 'mailbox');
  assert.equal(r.total.decided, 7);
  assert.equal(r.total.counts.rejected, 2);
  assert.deepEqual(
    r.groups.map((g) => [g.group, g.decided]),
    [
      ['support', 5],
      ['billing', 2],
    ],
  );
  const bad = await cli(['quality', '--by', 'colour']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--by takes one of category, mailbox, language, drafter, prompt, model/);
  const badWindow = await cli(['quality', '--since', 'last week']);
  assert.equal(badWindow.code, 2);
});

test('email-rag quality --gaps groups the gaps by topic with the embedder, and lists them without one', async () => {
  const grouped = await cli(['quality', '--gaps', '--json'], embedderServer.env);
  assert.equal(grouped.code, 0, grouped.stderr);
  const r = JSON.parse(grouped.stdout) as { grouped: boolean; mails: number; clusters: Array<{ count: number; examples: string[] }> };
  assert.equal(r.grouped, true);
  assert.equal(r.mails, 3);
  assert.deepEqual(
    r.clusters.map((c) => [c.count, [...c.examples].sort()]),
    [
      [2, ['Lieferung kommt nicht an', 'Where is my parcel?']],
      [1, ['Passwort vergessen']],
    ],
  );
  const text = await cli(['quality', '--gaps'], embedderServer.env);
  assert.match(text.stdout, /^3 mails since .* in 2 topics:$/m);
  assert.match(text.stdout, /^\s+2 {2}\d{4}-\d\d-\d\d…\d{4}-\d\d-\d\d {2}"Lieferung kommt nicht an" · "Where is my parcel\?"$/m);
  // An embedder that does not answer: listed one by one, with the reason, exit 0.
  const down = await cli(['quality', '--gaps'], { EMBEDDING_BASE_URL: 'http://127.0.0.1:9/v1' });
  assert.equal(down.code, 0, down.stderr);
  assert.match(down.stdout, /^3 mails since .* \(not grouped: embedder unavailable: .*\):$/m);
});

async function inbox(embedder: Embedder | null): Promise<FastifyInstance> {
  const config = loadConfig({ DATABASE_URL: db.url, INBOX_AUTH: 'header' }, { imap: false });
  return inboxOnDatabase(config, db.pool, {
    embedder,
  });
}

test('the operations page shows the figures per group, a 30-day chart in SVG with a table, and the gaps', async () => {
  const app = await inbox(
    createOpenAiEmbedder({ baseUrl: embedderServer.baseUrl, apiKey: 'none', model: embedderServer.model, timeoutMs: 30_000 }),
  );
  try {
    const res = await app.inject({ url: '/ops?by=mailbox&since=30d', headers: { 'x-forwarded-user': 'otto', 'accept-language': 'en' } });
    assert.equal(res.statusCode, 200);
    const html = res.body;
    assert.doesNotMatch(html, /<script/i);
    assert.match(res.headers['content-security-policy'] as string, /default-src 'none'/);
    assert.match(html, /<option value="mailbox" selected>mailbox<\/option>/);
    assert.match(
      html,
      /<tr><th scope="row">support<\/th><td>4<\/td><td>75\.0\u00a0%<\/td>\s*<td>2 \(50\.0\u00a0%\)<\/td><td>1 \(25\.0\u00a0%\)<\/td><td>1 \(25\.0\u00a0%\)<\/td>/,
    );
    assert.match(html, /<svg [^>]*role="img" aria-labelledby="outcome-chart-title outcome-chart-desc">/);
    assert.match(html, /<title id="outcome-chart-title">Draft outcomes per day, last 30 days<\/title>/);
    // Two unchanged and one light edit two days ago: three segments' worth in the day's bar titles.
    const twoDaysAgo = daysAgo(2).toISOString().slice(0, 10);
    assert.match(html, new RegExp(`<rect class="o-approved_unchanged"[^>]*><title>${twoDaysAgo}: 1 approved unchanged</title>`));
    assert.match(html, new RegExp(`<rect class="o-light_edit"[^>]*><title>${twoDaysAgo}: 1 light edit</title>`));
    assert.equal((html.match(/<tr><th scope="row">\d{4}-\d\d-\d\d<\/th>/g) ?? []).length, 30);
    assert.match(html, /<h2 id="gaps-h">Knowledge gaps \(3\)<\/h2>/);
    assert.doesNotMatch(html, /id="gaps-ungrouped"/);
    assert.match(html, /<tr><td>2<\/td><td><ul class="plain">(<li>(Where is my parcel\?|Lieferung kommt nicht an)<\/li>){2}<\/ul>/);
    await assertNoAxeFindings(html);
    const de = await app.inject({ url: '/ops', headers: { 'x-forwarded-user': 'otto', 'accept-language': 'de' } });
    assert.match(de.body, /<h2 id="quality-h">Entwurfsqualität<\/h2>/);
    assert.match(de.body, /<th scope="row">billing<\/th><td>3<\/td><td>100\.0\u00a0%<\/td>/);
  } finally {
    await app.close();
  }
});

test('the operations page with the embedder down lists the gaps ungrouped and still answers 200', async () => {
  const app = await inbox(createOpenAiEmbedder({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'none', model: 'e5', timeoutMs: 2_000 }));
  try {
    const res = await app.inject({ url: '/ops', headers: { 'x-forwarded-user': 'otto', 'accept-language': 'en' } });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<p class="warning" role="status" id="gaps-ungrouped">Not grouped by topic: embedder unavailable: /);
    assert.equal((res.body.match(/<tr><td>1<\/td><td><ul class="plain">/g) ?? []).length, 3);
  } finally {
    await app.close();
  }
});
