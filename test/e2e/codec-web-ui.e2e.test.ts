/**
 * The Temporal Web UI (the dev server's own, rendered in Debian's Chromium through
 * playwright-core) shows an encrypted workflow input in clear text only through the codec
 * server: endpoint `<codec url>/ui/<token>`, CORS for the UI's origin. With the codec server
 * gone, the same page shows no plaintext. A screenshot is kept in .local/test-artifacts/.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Client, Connection } from '@temporalio/client';
import { chromium, type Browser, type Page } from 'playwright-core';
import { connectTemporalClient } from '../../adapters/temporal-connection';
import { startCodecServer } from '../../cli/commands/codec-server';
import { loadConfig, type Config } from '../../lib/config';
import { freePort } from '../../scripts/services/ports';
import { startTemporalDevServer, type TemporalDevServer } from '../../scripts/services/temporal-dev-server';

const SECRET = 'Widerruf Vertrag 5521-K, Frau Yıldız';
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
  await client.workflow.start('EmailWorkflow', { taskQueue: 'codec-ui-check', workflowId: 'codec-ui-1', args: [{ note: SECRET }] });
  const history = await client.workflow.getHandle('codec-ui-1').fetchHistory();
  const raw = Buffer.from(JSON.stringify(history));
  assert.ok(!raw.includes(Buffer.from('5521-K')), 'the history itself holds ciphertext');

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

  await codec!.close();
  codec = undefined;
  const fresh = await browser.newPage();
  const undecoded = await workflowPage(fresh, 'codec-ui-1');
  assert.ok(!undecoded.includes(SECRET), 'without the codec server the UI cannot show the plaintext');
});
