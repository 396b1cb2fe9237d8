/**
 * Alerts that reach someone: the shipped Prometheus configuration and rules and the shipped
 * Alertmanager configuration, run for real (Debian's `prometheus` and `prometheus-alertmanager`)
 * on loopback ports. Prometheus scrapes a worker's figures with a send in doubt, its rule
 * `EmailRagSendInDoubt` fires, Alertmanager routes the page to the on-call receiver: the webhook
 * and the mail arrive, with the rule's text. A warning goes by mail to the team only. Only what
 * points outside this machine is rewritten (scrape target, Alertmanager address, smarthost,
 * webhook URL, secret files) and the waits (intervals, group_wait) are shortened.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { spawnManaged, type ManagedChild } from '../support/services/child-process';
import { freePort, waitForPort } from '../support/services/ports';
import { startSmtpSink, type SmtpSink } from '../support/services/smtp-sink';
import { waitFor } from '../support/wait';

const root = path.resolve(__dirname, '../..');
const PROMETHEUS = '/usr/bin/prometheus';
const ALERTMANAGER = '/usr/bin/prometheus-alertmanager';
const missing = [PROMETHEUS, ALERTMANAGER].filter((bin) => spawnSync(bin, ['--version']).error);

interface WebhookCall {
  authorization?: string;
  body: { receiver: string; status: string; alerts: Array<{ labels: Record<string, string>; annotations: Record<string, string> }> };
}

let dir: string;
let smtp: SmtpSink;
let metrics: Server;
let webhook: Server;
const calls: WebhookCall[] = [];
const children: ManagedChild[] = [];
/** What the fake worker's /metrics answers; the test changes it. */
let exposition = '';

async function listen(server: Server): Promise<number> {
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return port;
}

/** The shipped Alertmanager configuration pointed at this machine's listeners. */
function alertmanagerConfig(smtpPort: number, webhookPort: number): string {
  const c = parseYaml(readFileSync(path.join(root, 'deploy/alertmanager/alertmanager.yml'), 'utf8')) as {
    global: Record<string, unknown>;
    route: Record<string, unknown>;
    receivers: Array<{ name: string; webhook_configs?: Array<Record<string, unknown>> }>;
  };
  writeFileSync(path.join(dir, 'webhook-token'), 'test-token\n');
  writeFileSync(path.join(dir, 'smtp-password'), 'secret\n');
  // The test listener offers no TLS; Go sends a password without TLS only to localhost, so no AUTH here.
  Object.assign(c.global, { smtp_smarthost: `127.0.0.1:${smtpPort}`, smtp_require_tls: false, smtp_hello: 'localhost' });
  delete c.global.smtp_auth_username;
  delete c.global.smtp_auth_password_file;
  c.route.group_wait = '1s';
  for (const r of c.receivers)
    for (const w of r.webhook_configs ?? []) {
      w.url = `http://127.0.0.1:${webhookPort}/email-rag`;
      (w.http_config as { authorization: { credentials_file: string } }).authorization.credentials_file = path.join(dir, 'webhook-token');
    }
  return stringifyYaml(c);
}

function prometheusConfig(metricsPort: number, alertmanagerPort: number): string {
  const c = parseYaml(readFileSync(path.join(root, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
    global: Record<string, string>;
    rule_files: string[];
    scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }>;
    alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
  };
  c.global = { scrape_interval: '1s', evaluation_interval: '1s' };
  c.rule_files = [path.join(root, 'deploy/prometheus/alerts.yml')];
  c.scrape_configs[0]!.static_configs = [{ targets: [`127.0.0.1:${metricsPort}`] }];
  c.alerting.alertmanagers[0]!.static_configs = [{ targets: [`127.0.0.1:${alertmanagerPort}`] }];
  return stringifyYaml(c);
}

async function start(bin: string, args: string[], port: number, name: string): Promise<void> {
  const child = spawnManaged(bin, args, { logFile: path.join(dir, `${name}.log`) });
  children.push(child);
  await waitForPort('127.0.0.1', port, { timeoutMs: 60_000, what: name }).catch((err: unknown) => {
    throw new Error(`${name} did not start: ${String(err)}\n${child.logTail(20)}`);
  });
}

before(async () => {
  if (missing.length > 0) return;
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-alerts-'));
  smtp = await startSmtpSink();
  metrics = createServer((_req, res) => res.end(exposition));
  webhook = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      calls.push({ authorization: req.headers.authorization, body: JSON.parse(text) as WebhookCall['body'] });
      res.end('ok');
    });
  });
  const [metricsPort, webhookPort] = [await listen(metrics), await listen(webhook)];
  const [amPort, promPort] = [await freePort(), await freePort()];
  writeFileSync(path.join(dir, 'alertmanager.yml'), alertmanagerConfig(smtp.port, webhookPort));
  writeFileSync(path.join(dir, 'prometheus.yml'), prometheusConfig(metricsPort, amPort));
  mkdirSync(path.join(dir, 'am-data'));
  await start(
    ALERTMANAGER,
    [
      `--config.file=${path.join(dir, 'alertmanager.yml')}`,
      `--storage.path=${path.join(dir, 'am-data')}`,
      `--web.listen-address=127.0.0.1:${amPort}`,
      '--cluster.listen-address=',
    ],
    amPort,
    'alertmanager',
  );
  await start(
    PROMETHEUS,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'prom-data')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ],
    promPort,
    'prometheus',
  );
});

after(async () => {
  for (const c of children.reverse()) await c.terminate('SIGTERM', 10_000);
  await smtp?.stop();
  metrics?.close();
  webhook?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a send in doubt pages the on-call receiver (webhook and mail); a warning reaches the team by mail only', async (t) => {
  if (missing.length > 0) {
    t.skip(`${missing.join(' and ')} missing (Debian: apt-get install prometheus prometheus-alertmanager; scripts/setup.sh installs them)`);
    return;
  }
  exposition = [
    'email_rag_send_attempts{status="in_doubt"} 1',
    'email_rag_send_attempts{status="sent"} 7',
    'email_rag_inbox_login_refusals_total{reason="wrong_credentials"} 0',
    '',
  ].join('\n');
  const page = await waitFor('the page at the webhook', async () => calls.find((c) => c.body.status === 'firing'), 120_000, 500);
  assert.equal(page.body.receiver, 'on-call');
  assert.equal(page.authorization, 'Bearer test-token', 'the bearer token from the credentials file');
  const alert = page.body.alerts[0]!;
  assert.equal(alert.labels.alertname, 'EmailRagSendInDoubt');
  assert.equal(alert.labels.severity, 'page');
  assert.match(alert.annotations.summary!, /1 send\(s\) in doubt wait for a person/);
  const [mail] = await smtp.waitForMessages(1, 60_000);
  assert.deepEqual(mail!.envelope.rcptTo, ['on-call@example.com']);
  assert.match(mail!.raw.toString('utf8'), /EmailRagSendInDoubt/);

  // Over 20 refused review-inbox sign-ins within 10 minutes: a warning, to the team's address.
  exposition = exposition.replace('reason="wrong_credentials"} 0', 'reason="wrong_credentials"} 25');
  const warning = await waitFor(
    'the warning by mail',
    async () => smtp.messages.find((m) => m.raw.toString('utf8').includes('EmailRagInboxLoginBurst')),
    120_000,
    500,
  );
  assert.deepEqual(warning.envelope.rcptTo, ['support-ops@example.com']);
  assert.ok(!calls.some((c) => c.body.alerts.some((a) => a.labels.alertname === 'EmailRagInboxLoginBurst')), 'no webhook for a warning');
});
