/**
 * The deployment files, checked offline (no container engine here): docker-compose.temporal.yml
 * against the Compose specification's JSON schema, the wiring between its services and the files
 * under deploy/, the Temporal setup against src/platform/contract.ts, and the Prometheus alert rules
 * (with promtool when it is installed). That every metric they name is really exported is
 * checked against a live scrape in test/e2e/metrics.e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import Ajv from 'ajv';
import { parse as parseYaml } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../src/platform/contract';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface Service {
  image?: string;
  command?: string[] | string;
  depends_on?: string[] | Record<string, { condition: string }>;
  environment?: Record<string, string | number>;
  volumes?: string[];
  ports?: string[];
}
const compose = parseYaml(read('docker-compose.temporal.yml')) as { services: Record<string, Service> };
const services = compose.services;

/** `./host/path:/container/path[:ro]` of a service, as host path → container path. */
function mounts(service: Service): Map<string, string> {
  return new Map(
    (service.volumes ?? [])
      .filter((v) => v.startsWith('./'))
      .map((v) => {
        const [host, container] = v.split(':');
        return [path.normalize(host!), container!] as const;
      }),
  );
}

test('docker-compose.temporal.yml is valid against the Compose specification schema', () => {
  const schema = JSON.parse(read('test/fixtures/compose/compose-spec.json')) as object;
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validate = ajv.compile(schema);
  const ok = validate(compose);
  assert.ok(ok, `compose file invalid: ${ajv.errorsText(validate.errors, { separator: '\n' })}`);
  // The schema refuses what a typo would produce: the check is not a formality.
  const broken = structuredClone(compose) as { services: Record<string, Record<string, unknown>> };
  broken.services.worker!.depends_on = 'temporal';
  broken.services.temporal!.helthcheck = {};
  assert.equal(validate(broken), false);
});

test('Temporal is set up by admin-tools for the server image, not by the deprecated auto-setup image', () => {
  for (const [name, s] of Object.entries(services)) assert.doesNotMatch(s.image ?? '', /auto-setup/, `${name} uses auto-setup`);
  assert.match(services.temporal!.image!, /^temporalio\/server:/);
  const waitsFor = (name: string, on: string) => (services[name]!.depends_on as Record<string, { condition: string }>)[on]?.condition;
  assert.equal(waitsFor('temporal', 'temporal-schema'), 'service_completed_successfully');
  assert.equal(waitsFor('temporal-setup', 'temporal'), 'service_healthy');
  assert.equal(waitsFor('worker', 'temporal-setup'), 'service_completed_successfully');
  for (const job of ['temporal-schema', 'temporal-setup']) {
    assert.match(services[job]!.image!, /^temporalio\/admin-tools:/);
    const script = (services[job]!.command as string[]).at(-1)!;
    const host = [...mounts(services[job]!)].find(([, container]) => script.startsWith(`${container}/`));
    assert.ok(host, `${job} runs ${script} from a mounted folder`);
    const file = path.join(host[0], path.relative(host[1], script));
    assert.ok(existsSync(path.join(root, file)), `${file} exists`);
    execFileSync('sh', ['-n', path.join(root, file)]);
  }
  const dynamicConfig = [...mounts(services.temporal!)].find(([, c]) => c === services.temporal!.environment!.DYNAMIC_CONFIG_FILE_PATH);
  assert.ok(dynamicConfig, 'the dynamic config file the server is told to read is mounted');
  assert.match(read(dynamicConfig[0]), /matching\.useNewMatcher:\s*\n\s*- value: true/);
});

test('the compose setup registers exactly the search attributes of src/platform/contract.ts', () => {
  const script = read('deploy/temporal/setup-namespace.sh');
  const list = /^SEARCH_ATTRIBUTES="([^"]*)"/m.exec(script)?.[1];
  assert.ok(list, 'SEARCH_ATTRIBUTES list in setup-namespace.sh');
  const registered = Object.fromEntries(list.split(/\s+/).map((pair) => pair.split('=') as [string, string]));
  assert.deepEqual(registered, { ...SEARCH_ATTRIBUTES });
  assert.match(script, /temporal operator search-attribute create --namespace "\$NAMESPACE" --name "\$name" --type "\$type"/);
});

test('Prometheus scrapes the worker on its METRICS_PORT and loads the alert rules; Grafana gets the dashboard', () => {
  const port = String(services.worker!.environment!.METRICS_PORT);
  assert.match(port, /^\d+$/);
  const prom = services.prometheus!;
  const promMounts = mounts(prom);
  const config = parseYaml(read('deploy/prometheus/prometheus.yml')) as {
    rule_files: string[];
    scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }>;
  };
  assert.equal(promMounts.get('deploy/prometheus/prometheus.yml'), '/etc/prometheus/prometheus.yml');
  assert.ok((prom.command as string[]).includes('--config.file=/etc/prometheus/prometheus.yml'));
  const targets = config.scrape_configs.flatMap((c) => c.static_configs.flatMap((s) => s.targets));
  assert.ok(targets.includes(`worker:${port}`), `scrapes worker:${port}, has ${targets.join(', ')}`);
  assert.deepEqual(config.rule_files, [promMounts.get('deploy/prometheus/alerts.yml')]);

  const grafana = mounts(services.grafana!);
  const provisioning = grafana.get('deploy/grafana/provisioning');
  assert.equal(provisioning, '/etc/grafana/provisioning');
  const providers = parseYaml(read('deploy/grafana/provisioning/dashboards/email-rag.yml')) as {
    providers: Array<{ options: { path: string } }>;
  };
  assert.equal(path.dirname(grafana.get('deploy/grafana/email-rag.json') ?? ''), providers.providers[0]!.options.path);
  const datasources = parseYaml(read('deploy/grafana/provisioning/datasources/prometheus.yml')) as { datasources: Array<{ url: string }> };
  assert.equal(datasources.datasources[0]!.url, 'http://prometheus:9090');
});

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}

test('alert rules: the throughput and dead-letter alerts, each with an expression, a severity and a text for the person paged', () => {
  const rules = (parseYaml(read('deploy/prometheus/alerts.yml')) as { groups: Array<{ name: string; rules: Rule[] }> }).groups.flatMap(
    (g) => g.rules,
  );
  const byName = new Map(rules.map((r) => [r.alert, r]));
  assert.equal(byName.size, rules.length, 'alert names are unique');
  for (const [alert, reads] of [
    ['EmailRagUrgentMailPastDeadline', 'email_rag_oldest_urgent_age_seconds'],
    ['EmailRagNothingComingOut', 'email_rag_status_changes_total'],
    ['EmailRagDeadLettersGrowing', 'email_rag_jobs_dead_total'],
    ['EmailRagSendInDoubt', 'email_rag_send_attempts{status="in_doubt"}'],
    ['EmailRagNonDeterminism', 'failure_reason="NonDeterminismError"'],
    ['EmailRagWorkflowTaskFailures', 'temporal_workflow_task_execution_failed'],
    ['EmailRagMailboxNotPolled', 'email_rag_mailbox_seconds_since_poll_success'],
    ['EmailRagAbuseComplaint', 'email_rag_triage_alerts_total{event="feedback_report"}'],
    ['EmailRagReplyLimitReached', 'email_rag_triage_alerts_total{event="reply_limit_reached"}'],
    ['EmailRagPushIntakeDown', 'email_rag_idle_watchers{state=~"reconnecting|stale"}'],
    ['EmailRagMailboxSignInRefused', 'email_rag_mailbox_auth_blocked'],
    ['EmailRagCaseResponseOverdue', 'email_rag_cases_overdue'],
    ['EmailRagInboxLoginBurst', 'email_rag_inbox_login_refusals_total'],
  ] as const) {
    assert.ok(byName.get(alert)?.expr.includes(reads), `${alert} reads ${reads}`);
  }
  for (const r of rules) {
    assert.match(r.labels.severity, /^(page|warning)$/, r.alert);
    assert.ok(r.annotations.summary.length > 10 && r.annotations.description.length > 10, r.alert);
    if (r.for !== undefined) assert.match(r.for, /^\d+[smh]$/, r.alert);
  }
});

test('promtool: the rules load, fire on synthetic series as intended, and the Prometheus config is valid', (t) => {
  if (spawnSync('promtool', ['--version']).error) {
    t.skip('promtool is not installed (Debian: apt-get install prometheus); the structure is checked above');
    return;
  }
  const promtool = (...args: string[]) => {
    const out = spawnSync('promtool', args, { encoding: 'utf8', cwd: root });
    assert.equal(out.status, 0, `promtool ${args.join(' ')}:\n${out.stdout}${out.stderr}`);
  };
  promtool('check', 'rules', 'deploy/prometheus/alerts.yml');
  // Two workers export the same figures; each alert fires once, at the intended time, with its text.
  promtool('test', 'rules', 'test/fixtures/prometheus/alerts.test.yml');
  // The config names the rules by their path inside the container: point it at the file here.
  const dir = mkdtempSync(path.join(tmpdir(), 'email-rag-prometheus-'));
  try {
    const config = read('deploy/prometheus/prometheus.yml').replace(
      '/etc/prometheus/rules/alerts.yml',
      path.join(root, 'deploy/prometheus/alerts.yml'),
    );
    writeFileSync(path.join(dir, 'prometheus.yml'), config);
    promtool('check', 'config', path.join(dir, 'prometheus.yml'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Alertmanager: Prometheus sends to it, it loads the shipped configuration, and pages and warnings have receivers', (t) => {
  const am = services.alertmanager!;
  assert.equal(mounts(am).get('deploy/alertmanager/alertmanager.yml'), '/etc/alertmanager/alertmanager.yml');
  assert.ok((am.command as string[]).includes('--config.file=/etc/alertmanager/alertmanager.yml'));
  const prom = parseYaml(read('deploy/prometheus/prometheus.yml')) as {
    alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
  };
  assert.deepEqual(
    prom.alerting.alertmanagers.flatMap((a) => a.static_configs.flatMap((s) => s.targets)),
    ['alertmanager:9093'],
  );
  const config = parseYaml(read('deploy/alertmanager/alertmanager.yml')) as {
    route: { receiver: string; routes: Array<{ receiver: string; matchers: string[] }> };
    receivers: Array<{ name: string; email_configs?: unknown[]; webhook_configs?: unknown[] }>;
  };
  const receiver = (name: string) => config.receivers.find((r) => r.name === name);
  const pageRoute = config.route.routes.find((r) => r.matchers.includes('severity="page"'));
  assert.ok(pageRoute && receiver(pageRoute.receiver)?.webhook_configs?.length, 'a page goes to a receiver with a webhook');
  assert.ok(receiver(pageRoute.receiver)?.email_configs?.length, 'and a mail');
  assert.ok(receiver(config.route.receiver)?.email_configs?.length, 'everything else (warnings) goes by mail');
  if (spawnSync('amtool', ['--version']).error) {
    t.skip('amtool is not installed (Debian: apt-get install prometheus-alertmanager); the structure is checked above');
    return;
  }
  const out = spawnSync('amtool', ['check-config', 'deploy/alertmanager/alertmanager.yml'], { encoding: 'utf8', cwd: root });
  assert.equal(out.status, 0, `amtool check-config:\n${out.stdout}${out.stderr}`);
});
