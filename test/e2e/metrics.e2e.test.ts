/**
 * The worker's Prometheus endpoint as an operator scrapes it: the real `email-rag worker` process
 * (Runtime.install with METRICS_PORT) on the dev server, MariaDB, Dovecot and an SMTP listener;
 * scraped before and after a batch of emails. The alert rules and the dashboard may only name
 * metrics this scrape really holds.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { parse as parseYaml } from 'yaml';
import { freePort } from '../support/services/ports';
import { startWorkerProcess, type WorkerProcess } from '../support/services/worker-process';
import { metricNamesIn, parsePrometheusText, total, type Sample } from '../support/prometheus-text';
import { sampleEmail, startStack, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
let stack: TestStack;
let worker: WorkerProcess | undefined;
let metricsUrl: string;
let connection: Connection;
let client: Client;
let scraped: Sample[] = [];

const cli = (args: string[]) => run(process.execPath, ['bin/email-rag.js', ...args], { env: { ...process.env, ...stack.env }, cwd: root });

async function scrape(): Promise<Sample[]> {
  const res = await fetch(metricsUrl);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  return parsePrometheusText(await res.text());
}

/** Scrapes until `ok` holds for a scrape taken after the worker's next sampling round. */
async function scrapeUntil(what: string, ok: (s: Sample[]) => boolean): Promise<Sample[]> {
  return waitFor(
    what,
    async () => {
      const s = await scrape();
      return ok(s) ? s : undefined;
    },
    90_000,
    500,
  );
}

async function emailStatuses(): Promise<Map<string, string>> {
  const rows = (await stack.db.pool.query('SELECT id, status FROM emails')) as Array<{ id: string; status: string }>;
  return new Map(rows.map((r) => [r.id, r.status]));
}

before(async () => {
  const port = await freePort();
  // The batch's mails share a sender: with cases on they would form one case, whose summary and
  // redrafts also ask the LLM and could take the scripted failures meant for the drafts.
  stack = await startStack({
    env: { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1', METRICS_SAMPLE_SECONDS: '1', CASES: 'off' },
  });
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  connection = await Connection.connect({ address: stack.config.temporal.address });
  client = new Client({ connection });
  worker = await startWorkerProcess(stack.env, path.join(stack.dir, 'worker.log'));
});
after(async () => {
  await worker?.stop().catch(() => worker?.kill());
  await connection?.close();
  await stack?.stop();
});

test('the endpoint serves the SDK metrics and the business figures before any mail', async () => {
  const before = await scrapeUntil('a first business sample', (s) => total(s, 'email_rag_metrics_last_sample_timestamp_seconds') > 0);
  assert.ok(
    before.some((s) => s.name === 'temporal_worker_task_slots_available'),
    'SDK slot gauges',
  );
  assert.ok(total(before, 'temporal_worker_task_slots_available', { task_queue: `${stack.env.TEMPORAL_TASK_QUEUE}-llm` }) > 0);
  // The full (status, priority) grid is there from the start, at 0, so alerts see no gaps.
  assert.equal(before.filter((s) => s.name === 'email_rag_backlog_emails').length, 6 * 4);
  // One mailbox (the single-account variables as `default`): its label on the backlog, its folder's poll health.
  assert.ok(before.filter((s) => s.name === 'email_rag_backlog_emails').every((s) => s.labels.mailbox === 'default'));
  assert.deepEqual(
    before.filter((s) => s.name === 'email_rag_mailbox_poll_failures_in_a_row').map((s) => [s.labels.mailbox, s.labels.folder]),
    [['default', 'INBOX']],
  );
  assert.equal(total(before, 'email_rag_backlog_emails'), 0);
  assert.equal(total(before, 'email_rag_emails_received_total'), 0);
  // Counters of every step and error class start at 0, so the first dead job is an increase.
  assert.equal(before.filter((s) => s.name === 'email_rag_jobs_dead_total' && s.labels.step === 'draft').length, 4);
  assert.equal(total(before, 'email_rag_send_attempts', { status: 'in_doubt' }), 0);
  assert.equal(total(before, 'email_rag_metrics_sample_failures_total'), 0);
});

test('a batch of emails moves the series: intake, waiting for a person, time to draft, step runtimes, dead letters, sends', async () => {
  const before = await scrape();
  const activitiesBefore = total(before, 'temporal_activity_execution_latency_count');
  const localActivitiesBefore = total(before, 'temporal_local_activity_execution_latency_count');
  // The first draft request gets a 400: permanent, the draft job is dead and a person must write it.
  // The second a 503: transient, retried after the server's Retry-After.
  stack.llm.script(
    { kind: 'status', status: 400, for: 'email_draft' },
    { kind: 'status', status: 503, retryAfter: '1', for: 'email_draft' },
  );
  const dir = path.join(stack.dir, 'batch');
  mkdirSync(dir);
  const mails: Array<[string, string[]]> = [
    ['Rechnung doppelt', ['X-Priority: 1 (Highest)']],
    ['Lieferung verspätet', []],
    ['Passwort', []],
    // Hostile and real-world: an encoded subject with a quote and a label-breaking newline attempt.
    ['=?UTF-8?B?U3RhdHVzPSJpbl9kb3VidCJ9IOKAkyBuZXc=?=', ['Importance: low']],
  ];
  mails.forEach(([subject, extra], i) =>
    writeFileSync(path.join(dir, `${i}.eml`), sampleEmail({ subject, extra, messageId: `<metrics-${i}@customer.example>` })),
  );
  await cli(['ingest', dir]);
  await waitFor(
    'every email waiting for a person',
    async () => {
      const statuses = [...(await emailStatuses()).values()];
      return statuses.length === 4 && statuses.every((s) => s === 'awaiting_approval' || s === 'manual_review');
    },
    120_000,
  );
  const statuses = await emailStatuses();
  const awaiting = [...statuses].filter(([, s]) => s === 'awaiting_approval').map(([id]) => id);
  assert.equal(awaiting.length, 3);
  assert.equal([...statuses.values()].filter((s) => s === 'manual_review').length, 1);
  await cli(['approve', awaiting[0]!, '--by', 'ops']);
  await waitFor('the approved reply sent', async () => (await emailStatuses()).get(awaiting[0]!) === 'sent', 60_000);

  // A workflow task that cannot run (no such workflow type on this worker) counts as a task failure.
  const broken = await client.workflow.start('NoSuchWorkflow', {
    taskQueue: stack.env.TEMPORAL_TASK_QUEUE!,
    workflowId: 'metrics-broken-workflow',
    args: [],
  });
  const after = await scrapeUntil(
    'the batch in the business figures and a workflow task failure in the SDK figures',
    (s) =>
      total(s, 'email_rag_emails_received_total') === 4 &&
      total(s, 'email_rag_send_attempts', { status: 'sent' }) === 1 &&
      total(s, 'email_rag_status_changes_total', { status: 'sent' }) === 1 &&
      total(s, 'temporal_workflow_task_execution_failed') > 0,
  );
  await broken.terminate('metrics test');

  assert.equal(total(after, 'email_rag_emails_received_total', { priority: 'high' }), 1, 'X-Priority 1 is high');
  assert.equal(total(after, 'email_rag_emails_received_total', { priority: 'low' }), 1);
  assert.equal(total(after, 'email_rag_waiting_for_person_emails', { status: 'awaiting_approval' }), 2);
  assert.equal(total(after, 'email_rag_waiting_for_person_emails', { status: 'manual_review' }), 1);
  assert.ok(total(after, 'email_rag_oldest_waiting_for_person_seconds') >= 0);
  assert.equal(total(after, 'email_rag_backlog_emails'), 0, 'nothing left in the pipeline itself');
  assert.equal(total(after, 'email_rag_time_to_draft_seconds_count'), 4, 'one first draft (or manual review) per email');
  assert.ok(total(after, 'email_rag_time_to_draft_seconds_sum') > 0);
  assert.equal(total(after, 'email_rag_step_runtime_seconds_count', { step: 'parse' }), 4);
  assert.equal(total(after, 'email_rag_step_runtime_seconds_count', { step: 'send' }), 1);
  assert.equal(total(after, 'email_rag_jobs_dead_total', { step: 'draft', error_class: 'permanent' }), 1);
  assert.equal(total(after, 'email_rag_jobs_dead_total'), 1);
  assert.equal(total(after, 'email_rag_dead_letters', { step: 'draft', error_class: 'permanent' }), 1);
  assert.equal(total(after, 'email_rag_job_retries_total', { step: 'draft', error_class: 'transient' }), 1);
  assert.equal(total(after, 'email_rag_job_retries_total'), 1);
  assert.equal(total(after, 'email_rag_send_attempts', { status: 'in_doubt' }), 0);
  // The SDK's own series moved too.
  // Per email to its draft: the intake (fetch-parse-index) as a local activity in the first
  // workflow task, then the draft as an activity task.
  assert.ok(total(after, 'temporal_activity_execution_latency_count') >= activitiesBefore + 4);
  assert.ok(total(after, 'temporal_local_activity_execution_latency_count') >= localActivitiesBefore + 4);
  assert.ok(total(after, 'temporal_workflow_completed', { workflow_type: 'EmailWorkflow' }) >= 1);
  assert.ok(after.some((s) => s.name === 'temporal_workflow_task_schedule_to_start_latency_bucket'));
  assert.ok(after.some((s) => s.name === 'temporal_activity_schedule_to_start_latency_bucket'));
  assert.equal(total(after, 'email_rag_metrics_sample_failures_total'), 0);
  scraped = after;
});

test('every metric the alert rules and the dashboard name is exported by the worker', () => {
  assert.ok(scraped.length > 0, 'needs the scrape of the test before');
  const exported = new Set(scraped.map((s) => s.name));
  const rules = parseYaml(readFileSync(path.join(root, 'deploy/prometheus/alerts.yml'), 'utf8')) as {
    groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
  };
  const exprs: Array<readonly [string, string]> = rules.groups.flatMap((g) => g.rules.map((r) => [`alert ${r.alert}`, r.expr] as const));
  const dashboard = JSON.parse(readFileSync(path.join(root, 'deploy/grafana/email-rag.json'), 'utf8')) as {
    panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
  };
  exprs.push(...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => [`panel ${p.title}`, t.expr] as const)));
  assert.ok(exprs.length > 20);
  // `up` is Prometheus's own series for each scrape target: the rules that fire when a target is
  // gone (a worker, the inbox, Temporal, the database's exporter) read only it, for a job that
  // prometheus.yml scrapes.
  const scrapeJobs = new Set(
    (
      parseYaml(readFileSync(path.join(root, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
        scrape_configs: Array<{ job_name: string }>;
      }
    ).scrape_configs.map((c) => c.job_name),
  );
  const missing = exprs.flatMap(([where, expr]) => {
    const names = metricNamesIn(expr);
    const upJobs = [...expr.matchAll(/(?:^|[^\w])up\{job="([^"]+)"\}/g)].map((m) => m[1]!);
    for (const job of upJobs) assert.ok(scrapeJobs.has(job), `${where} reads up of job ${job}, which prometheus.yml does not scrape`);
    assert.ok(names.length > 0 || upJobs.length > 0, `${where} reads no metric of ours (nor a scrape target's up): ${expr}`);
    return names.filter((n) => !exported.has(n)).map((n) => `${where}: ${n}`);
  });
  assert.deepEqual(missing, []);
});
