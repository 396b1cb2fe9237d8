/**
 * The Temporal Web UI (the dev server's own, rendered in Debian's Chromium through
 * playwright-core) shows an encrypted workflow input in clear text only through the codec
 * server: endpoint `<codec url>/ui/<token>`, CORS for the UI's origin. The static summary (the
 * subject and sender operators read) is a payload too: the user metadata page shows it decoded.
 * With the codec server gone, the same pages show no plaintext. Screenshots are kept in
 * .local/test-artifacts/.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { connectTemporalClient } from '../../src/platform/temporal-connection';
import { startCodecServer } from '../../src/operations/codec-server.cli';
import { loadConfig, type Config } from '../../src/config';
import { freePort } from '../support/services/ports';
import { startTemporalDevServer, type TemporalDevServer } from '../support/services/temporal-dev-server';

const SECRET = 'Widerruf Vertrag 5521-K, Frau Yıldız';
const SUMMARY = 'Rückruf erbeten 7730-M — Frau Yıldız (yildiz@kundin.example)';
const TOKEN = randomBytes(20).toString('hex');
const artifacts = path.resolve(__dirname, '../../.local/test-artifacts');

let dir: string;
let server: TemporalDevServer;
let config: Config;
let codec: Awaited<ReturnType<typeof startCodecServer>> | undefined;
let connection: Connection;
let client: Client;
let browser: Browser;

/** The workflow page once the UI has had time to fetch and decode its history. */
async function workflowPage(page: Page, workflowId: string): Promise<string> {
  await page.goto(`${server.uiUrl}/namespaces/default/workflows/${workflowId}`, { waitUntil: 'load' });
  await page.getByText(workflowId).first().waitFor({ timeout: 60_000 });
  // The input panel fills in after the decode call; give it time either way.
  await page
    .getByText(SECRET)
    .first()
    .waitFor({ timeout: 15_000 })
    .catch(() => undefined);
  return page.content();
}

/** The workflow's user metadata page: the summary is rendered in a frame of its own. */
async function summaryText(page: Page, workflowId: string, runId: string): Promise<string> {
  await page.goto(`${server.uiUrl}/namespaces/default/workflows/${workflowId}/${runId}/user-metadata`, { waitUntil: 'load' });
  const handle = await page.waitForSelector('iframe#user-metadata-summary', { timeout: 60_000 });
  const frame = await handle.contentFrame();
  assert.ok(frame, 'the summary frame loaded');
  await frame.waitForSelector('main', { timeout: 60_000 });
  // Filled in after the decode call; give it time either way.
  await frame
    .getByText('7730-M')
    .first()
    .waitFor({ timeout: 15_000 })
    .catch(() => undefined);
  return (await frame.locator('main').innerText()).trim();
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-codec-ui-'));
  const codecPort = await freePort();
  server = await startTemporalDevServer({
    dataDir: dir,
    extraArgs: ['--ui-codec-endpoint', `http://127.0.0.1:${codecPort}/ui/${TOKEN}`],
  });
  config = loadConfig(
    {
      TEMPORAL_ADDRESS: server.address,
      PAYLOAD_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      CODEC_TOKEN: TOKEN,
      CODEC_PORT: String(codecPort),
      CODEC_CORS_ORIGINS: server.uiUrl!,
    },
    { imap: false },
  );
  codec = await startCodecServer(config);
  ({ client, connection } = await connectTemporalClient(config));
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
});

after(async () => {
  await browser?.close();
  await codec?.close();
  await connection?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the Web UI shows the encrypted input decoded through the codec server, and nothing without it', async () => {
  // No worker needed: the start input alone is in the history.
  const handle = await client.workflow.start('EmailWorkflow', {
    taskQueue: 'codec-ui-check',
    workflowId: 'codec-ui-1',
    args: [{ note: SECRET }],
    staticSummary: SUMMARY,
  });
  const history = await handle.fetchHistory();
  const raw = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
  assert.ok(!raw.includes(Buffer.from('5521-K')), 'the history itself holds ciphertext');
  assert.ok(!raw.includes(Buffer.from('7730-M')), 'the summary too');

  const page = await browser.newPage();
  const decodeCalls: number[] = [];
  page.on('response', (r) => {
    if (r.url().includes('/decode')) decodeCalls.push(r.status());
  });
  const decoded = await workflowPage(page, 'codec-ui-1');
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, 'codec-web-ui.png'), fullPage: true });
  assert.ok(decodeCalls.includes(200), `the UI called the codec server (${decodeCalls.join(', ')})`);
  assert.ok(decoded.includes(SECRET), 'the decoded input is on the page');
  assert.equal(await summaryText(page, 'codec-ui-1', handle.firstExecutionRunId), SUMMARY, 'the summary is shown decoded');
  await page.screenshot({ path: path.join(artifacts, 'codec-web-ui-summary.png'), fullPage: true });

  await codec!.close();
  codec = undefined;
  const fresh = await browser.newPage();
  const undecoded = await workflowPage(fresh, 'codec-ui-1');
  assert.ok(!undecoded.includes(SECRET), 'without the codec server the UI cannot show the plaintext');
  // Undecodable, the UI renders no summary frame at all; nothing on the page or in a frame holds it.
  await fresh.goto(`${server.uiUrl}/namespaces/default/workflows/codec-ui-1/${handle.firstExecutionRunId}/user-metadata`);
  await fresh.getByText('codec-ui-1').first().waitFor({ timeout: 60_000 });
  await fresh
    .getByText('7730-M')
    .first()
    .waitFor({ timeout: 15_000 })
    .catch(() => undefined);
  await fresh.screenshot({ path: path.join(artifacts, 'codec-web-ui-summary-without-codec.png'), fullPage: true });
  for (const frame of fresh.frames()) {
    const text = await frame.content().catch(() => '');
    assert.ok(!text.includes('7730-M'), 'without the codec server no summary in clear text');
  }
});
