/**
 * The Kubernetes manifests (deploy/kubernetes), checked offline: the base, the example overlay and
 * the overlay with the components for Temporal's TLS files are rendered with `kubectl kustomize`, every object is
 * validated against the Kubernetes API schemas that PyPI's kubernetes-validate ships (strict:
 * an unknown field is an error), and the wiring is checked against the image and the compose
 * stack: probes, the worker's replicas, disruption budget and grace period, the build id from the
 * release's tag, secrets as files that nothing contains, the settings compose gives each service.
 * Setup installs both tools (scripts/setup.sh, step c3). Nothing here talks to a cluster.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { parse as parseYaml, parseAllDocuments, stringify as stringifyYaml } from 'yaml';
import { HEALTH_PATHS, readOperationsConfig, WORKER_HEALTH_PORT } from '../../src/operations';
import { readSpamdSettings } from '../../src/triage';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const VENV_BIN = path.join(root, '.tools/venv/bin');

// The health endpoints of the three servers (HEALTH_PORT is the worker's; the inbox and the codec
// server answer on their own port).
const LIVENESS = HEALTH_PATHS.live;
const READINESS = HEALTH_PATHS.ready;
const PORTS = { worker: WORKER_HEALTH_PORT, inbox: 8025, codec: 8234 } as const;
// The oldest and the newest API version the manifests are checked against.
const KUBERNETES_VERSIONS = ['1.29', '1.37'];
const APP_UID = 10001;

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { configMapKeyRef?: { name: string; key: string } };
}
interface Probe {
  httpGet?: { path: string; port: number | string };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string } }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  resources?: { requests?: { memory?: string }; limits?: { memory?: string } };
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}
interface AffinityTerm {
  podAffinityTerm: { topologyKey: string; labelSelector: { matchLabels: Record<string, string> } };
}
interface PodSpec {
  containers: Container[];
  restartPolicy?: string;
  affinity?: { podAntiAffinity?: { preferredDuringSchedulingIgnoredDuringExecution?: AffinityTerm[] } };
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; fsGroup?: number };
  volumes?: Array<{
    name: string;
    secret?: { secretName: string; items?: Array<{ key: string; path: string }> };
    persistentVolumeClaim?: { claimName: string };
  }>;
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec?: {
    replicas?: number;
    minAvailable?: number;
    accessModes?: string[];
    backoffLimit?: number;
    ttlSecondsAfterFinished?: number;
    selector?: { matchLabels?: Record<string, string> } & Record<string, unknown>;
    template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
  };
}

/** A kubectl whose built-in kustomize is v5 or newer (components, replacements): KUBECTL, the venv's, or PATH's. */
function findKubectl(): string {
  const tried: string[] = [];
  for (const candidate of [process.env.KUBECTL, path.join(VENV_BIN, 'kubectl'), 'kubectl']) {
    if (!candidate) continue;
    const out = spawnSync(candidate, ['version', '--client'], { encoding: 'utf8' });
    const major = /^Kustomize Version: v(\d+)\./m.exec(out.stdout ?? '')?.[1];
    if (major && Number(major) >= 5) return candidate;
    tried.push(`${candidate}: ${out.error ? 'not found' : `kustomize ${major ? `v${major}` : 'unknown'}`}`);
  }
  assert.fail(`no kubectl with kustomize v5 or newer (${tried.join('; ')}): run scripts/setup.sh, or set KUBECTL`);
}

// A copy of deploy/kubernetes with the secret files an operator would write, and one more overlay
// that adds the components for Temporal's TLS files: the repository's own folder stays untouched.
const work = mkdtempSync(path.join(tmpdir(), 'email-rag-kubernetes-'));
after(() => rmSync(work, { recursive: true, force: true }));
const tree = path.join(work, 'kubernetes');
cpSync(path.join(root, 'deploy/kubernetes'), tree, { recursive: true, filter: (src) => !src.includes(`${path.sep}secrets${path.sep}`) });
const overlayKustomization = parseYaml(read('deploy/kubernetes/overlays/example/kustomization.yaml')) as {
  secretGenerator: Array<{ name: string; files: string[] }>;
};
const secretFiles = overlayKustomization.secretGenerator.flatMap((g) => g.files);
mkdirSync(path.join(tree, 'overlays/example/secrets'), { recursive: true });
for (const file of secretFiles) writeFileSync(path.join(tree, 'overlays/example', file), `value-of-${path.basename(file)}\n`);
mkdirSync(path.join(tree, 'overlays/with-mtls'));
writeFileSync(
  path.join(tree, 'overlays/with-mtls/kustomization.yaml'),
  'resources: [../example]\ncomponents: [../../components/temporal-mtls, ../../components/temporal-ca]\n',
);

const kubectl = findKubectl();

/** `kubectl kustomize DIR`: the YAML text; fails on an error and on any warning (a deprecated field). */
function renderText(dir: string): string {
  const out = spawnSync(kubectl, ['kustomize', path.join(tree, dir)], { encoding: 'utf8' });
  assert.equal(out.status, 0, `kubectl kustomize ${dir}:\n${out.stderr}`);
  assert.equal(out.stderr.trim(), '', `kubectl kustomize ${dir} warns`);
  return out.stdout;
}
const parseObjects = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as K8sObject);
const rendered = {
  base: renderText('base'),
  example: renderText('overlays/example'),
  mtls: renderText('overlays/with-mtls'),
};
const base = parseObjects(rendered.base);
const example = parseObjects(rendered.example);
const mtls = parseObjects(rendered.mtls);

const ofKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const component = (o: K8sObject) => o.metadata.labels?.['app.kubernetes.io/component'];
function workload(objects: K8sObject[], name: 'worker' | 'inbox' | 'codec' | 'init'): K8sObject {
  const found = objects.filter((o) => ['Deployment', 'Job'].includes(o.kind) && component(o) === name);
  assert.equal(found.length, 1, `one ${name}`);
  return found[0]!;
}
const podSpec = (o: K8sObject) => o.spec!.template!.spec;
const appContainer = (o: K8sObject) => podSpec(o).containers.find((c) => c.name === 'email-rag')!;

/** The environment a container gets: its env values and the keys of the ConfigMaps it takes whole. */
function environment(objects: K8sObject[], o: K8sObject): Map<string, string> {
  const c = appContainer(o);
  const env = new Map<string, string>();
  const configMap = (name: string) => ofKind(objects, 'ConfigMap').find((m) => m.metadata.name === name);
  for (const from of c.envFrom ?? []) {
    const map = configMap(from.configMapRef!.name);
    assert.ok(map, `${o.metadata.name} takes the ConfigMap ${from.configMapRef!.name}, which the render has`);
    for (const [k, v] of Object.entries(map.data ?? {})) env.set(k, v);
  }
  for (const e of c.env ?? []) {
    const ref = e.valueFrom?.configMapKeyRef;
    const value = ref ? configMap(ref.name)?.data?.[ref.key] : e.value;
    assert.ok(value !== undefined, `${o.metadata.name}: ${e.name} has a value`);
    env.set(e.name, value);
  }
  return env;
}

/** The container port a probe or annotation names (by name or number). */
function portNumber(c: Container, port: number | string): number {
  if (typeof port === 'number') return port;
  const found = c.ports?.find((p) => p.name === port);
  assert.ok(found, `${c.name} has a port named ${port}`);
  return found.containerPort;
}

test('the base, the example overlay and the overlay with the Temporal TLS components are valid against the Kubernetes API schemas (strict, offline)', () => {
  const validator = path.join(VENV_BIN, 'kubernetes-validate');
  assert.ok(existsSync(validator), `${validator} is missing: run scripts/setup.sh`);
  const validate = (name: string, text: string, version: string) => {
    const file = path.join(work, `${name}.yaml`);
    writeFileSync(file, text);
    const out = spawnSync(validator, ['--strict', '--quiet', '-k', version, file], { encoding: 'utf8' });
    return { status: out.status, output: `${out.stdout}${out.stderr}` };
  };
  for (const [name, text] of Object.entries(rendered)) {
    for (const version of KUBERNETES_VERSIONS) {
      const out = validate(name, text, version);
      assert.equal(out.status, 0, `${name} against Kubernetes ${version}:\n${out.output}`);
    }
  }
  // The schemas refuse what a typo would produce: the check is not a formality.
  const misspelt = validate('misspelt', rendered.example.replace('readinessProbe:', 'readynessProbe:'), KUBERNETES_VERSIONS[0]!);
  assert.notEqual(misspelt.status, 0, 'a misspelt field is refused');
  assert.match(misspelt.output, /readynessProbe/);
  const worker = structuredClone(workload(example, 'worker')) as unknown as { spec: { replicas: unknown } };
  worker.spec.replicas = 'two';
  const wrongType = validate('wrong-type', stringifyYaml(worker), KUBERNETES_VERSIONS[0]!);
  assert.notEqual(wrongType.status, 0, 'a wrong type is refused');
});

test('every Deployment has a liveness and a readiness probe on its health port; Prometheus scrapes /metrics', () => {
  for (const objects of [base, example]) {
    const deployments = ofKind(objects, 'Deployment');
    assert.deepEqual(deployments.map(component).sort(), ['codec', 'inbox', 'worker']);
    for (const d of deployments) {
      const name = component(d) as keyof typeof PORTS;
      const c = appContainer(d);
      const live = c.livenessProbe?.httpGet;
      const ready = c.readinessProbe?.httpGet;
      assert.ok(live && ready, `${name} has httpGet liveness and readiness probes`);
      assert.equal(live.path, LIVENESS, name);
      assert.equal(ready.path, READINESS, name);
      assert.equal(portNumber(c, live.port), PORTS[name], `${name}: liveness port`);
      assert.equal(portNumber(c, ready.port), PORTS[name], `${name}: readiness port`);
      const annotations = d.spec!.template!.metadata!.annotations ?? {};
      assert.equal(annotations['prometheus.io/scrape'], 'true', name);
      assert.equal(annotations['prometheus.io/path'], '/metrics', name);
    }
    // The servers listen where the probes ask, on every interface of the pod.
    const worker = workload(objects, 'worker');
    const workerEnv = environment(objects, worker);
    assert.equal(workerEnv.get('HEALTH_PORT'), String(WORKER_HEALTH_PORT));
    const metrics = appContainer(worker).ports?.find((p) => p.name === 'metrics');
    assert.equal(String(metrics?.containerPort), workerEnv.get('METRICS_PORT'), 'a port named metrics is METRICS_PORT');
    assert.equal(worker.spec!.template!.metadata!.annotations!['prometheus.io/port'], workerEnv.get('METRICS_PORT'));
    const inboxEnv = environment(objects, workload(objects, 'inbox'));
    assert.equal(inboxEnv.get('INBOX_PORT'), String(PORTS.inbox));
    assert.equal(inboxEnv.get('INBOX_HOST'), '0.0.0.0');
    const codecEnv = environment(objects, workload(objects, 'codec'));
    assert.equal(codecEnv.get('CODEC_PORT'), String(PORTS.codec));
    assert.equal(codecEnv.get('CODEC_HOST'), '0.0.0.0');
    for (const name of ['inbox', 'codec'] as const) {
      assert.equal(workload(objects, name).spec!.template!.metadata!.annotations!['prometheus.io/port'], String(PORTS[name]), name);
    }
  }
});

test('the worker: two or more replicas, spread over nodes, a disruption budget selecting them, time to finish on SIGTERM', () => {
  for (const objects of [base, example]) {
    const worker = workload(objects, 'worker');
    assert.ok((worker.spec!.replicas ?? 1) >= 2, 'at least 2 replicas');
    const podLabels = worker.spec!.template!.metadata!.labels!;
    const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => labels[k] === v);
    assert.ok(selects(worker.spec!.selector!.matchLabels!, podLabels));
    const budgets = ofKind(objects, 'PodDisruptionBudget');
    const budget = budgets.find((b) => selects(b.spec!.selector!.matchLabels!, podLabels));
    assert.ok(budget, 'a PodDisruptionBudget selects the worker pods');
    assert.equal(budget.spec!.minAvailable, 1);
    for (const other of ['inbox', 'codec'] as const) {
      assert.ok(!selects(budget.spec!.selector!.matchLabels!, workload(objects, other).spec!.template!.metadata!.labels!), other);
    }
    // The worker's own shutdown grace (WORKER_SHUTDOWN_GRACE_MS, default 30 s) and then some.
    const env = environment(objects, worker);
    const settings = Object.fromEntries([...env.entries()].filter(([k]) => k.startsWith('WORKER_')));
    const { shutdownGraceMs } = readOperationsConfig(settings, []).worker;
    const grace = podSpec(worker).terminationGracePeriodSeconds ?? 30;
    assert.ok(grace >= 45, `terminationGracePeriodSeconds ${grace} >= 45`);
    assert.ok(grace * 1000 >= shutdownGraceMs + 15_000, `grace ${grace} s leaves 15 s beyond the worker's ${shutdownGraceMs} ms`);
    // Replicas on different nodes: a term that keeps worker pods apart by host name.
    const apart = podSpec(worker).affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
    assert.ok(
      apart.some(
        (t) =>
          t.podAffinityTerm.topologyKey === 'kubernetes.io/hostname' && selects(t.podAffinityTerm.labelSelector.matchLabels, podLabels),
      ),
      'anti-affinity spreads the worker pods over nodes',
    );
    // About 400 MB with 1,000 emails waiting plus the embedder's process, about 160 MB
    // (docs/performance.md): requested, and a limit with room for a large drain's peak.
    const mib = (q = '') => Number(/^(\d+)Mi$/.exec(q)?.[1] ?? Number(/^(\d+)Gi$/.exec(q)?.[1]) * 1024);
    const { requests, limits } = appContainer(worker).resources ?? {};
    assert.ok(mib(requests?.memory) >= 600, `memory request ${requests?.memory}`);
    assert.ok(mib(limits?.memory) >= 1.5 * mib(requests?.memory), `memory limit ${limits?.memory} with headroom`);
    // The same young-generation cap as compose.
    assert.equal(env.get('NODE_OPTIONS'), '--max-semi-space-size=8');
  }
});

test('the release: one tag names the images, the build id and the worker Deployment; no `latest`', () => {
  const release = parseYaml(read('deploy/kubernetes/overlays/example/release.yaml')) as { data: { tag: string } };
  const tag = release.data.tag;
  const check = (objects: K8sObject[], expected: string) => {
    const images = ['worker', 'inbox', 'codec', 'init'].flatMap((n) =>
      podSpec(workload(objects, n as 'worker')).containers.map((c) => c.image),
    );
    for (const image of images) {
      const imageTag = /:([^:/]+)$/.exec(image)?.[1];
      assert.ok(imageTag && imageTag !== 'latest', `${image} has a tag that is not latest`);
      assert.equal(imageTag, expected, image);
      // The app image only: Temporal and MariaDB are outside.
      assert.match(image, /(^|\/)email-rag:/);
    }
    const worker = workload(objects, 'worker');
    const env = environment(objects, worker);
    assert.equal(env.get('WORKER_BUILD_ID'), expected);
    assert.equal(env.get('WORKER_DEPLOYMENT_NAME'), 'email-rag');
    // Valid for the worker's settings (no '.' or ':' in the deployment name).
    const problems: string[] = [];
    readOperationsConfig(Object.fromEntries(env), problems);
    assert.deepEqual(problems, []);
    assert.equal(worker.metadata.name, `email-rag-worker-${expected}`);
    assert.equal(worker.spec!.template!.metadata!.labels!['app.kubernetes.io/version'], expected);
    const budget = ofKind(objects, 'PodDisruptionBudget')[0]!;
    assert.equal(budget.metadata.name, `email-rag-worker-${expected}`);
    assert.equal(budget.spec!.selector!.matchLabels!['app.kubernetes.io/version'], expected);
  };
  check(example, tag);
  // The base alone names one release too.
  check(base, /:([^:/]+)$/.exec(appContainer(workload(base, 'worker')).image)![1]!);
  assert.ok(
    ofKind(example, 'ConfigMap').every((m) => m.metadata.name !== 'email-rag-release'),
    'the release ConfigMap is local: not applied',
  );
  // Another tag in release.yaml changes all of them, and only the registry of `images:` is added.
  const releaseFile = path.join(tree, 'overlays/example/release.yaml');
  const original = readFileSync(releaseFile, 'utf8');
  try {
    writeFileSync(releaseFile, original.replace(/tag: .*/, 'tag: 2.0.0-rc.1'));
    const next = parseObjects(renderText('overlays/example'));
    check(next, '2.0.0-rc.1');
    assert.ok(appContainer(workload(next, 'worker')).image.startsWith('registry.example.com/'));
  } finally {
    writeFileSync(releaseFile, original);
  }
});

/**
 * The settings compose always gives a service (not those with an empty default), each with the
 * value it gets when the operator sets nothing: the default of `${X:-default}`, undefined for a
 * required `${X:?…}`.
 */
function composeSettings(service: string): Map<string, string | undefined> {
  const compose = parseYaml(read('deploy/compose.yaml'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string | number> }>;
  };
  const out = new Map<string, string | undefined>();
  for (const [key, raw] of Object.entries(compose.services[service]!.environment ?? {})) {
    const value = String(raw);
    const interpolated = /^\$\{\w+(?::?-(.*)|:\?.*)\}$/.exec(value);
    if (interpolated && interpolated[1] === '') continue; // optional, empty unless the operator sets it
    out.set(key, interpolated ? interpolated[1] : value);
  }
  return out;
}
// Where the cluster differs from compose's stack by design: secret files are mounted elsewhere,
// Temporal, MariaDB, spamd and the Web UI have cluster addresses, the inbox is served behind TLS.
const CLUSTER_SPECIFIC = /(_FILE|_URL|_HOST|ADDRESS|COOKIE_SECURE|CORS_ORIGINS|_SPAMD)$/;
const BY_TLS_COMPONENTS = new Set(['TEMPORAL_TLS_CA', 'TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY']);

test('each app gets the settings compose gives its service; secrets only as files, from a Secret nothing here contains', () => {
  const entrypoint = read('deploy/container/email-rag.sh');
  const secretSettings = /^SECRET_SETTINGS='([^']*)'/m.exec(entrypoint)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
  assert.ok(secretSettings.includes('DATABASE_PASSWORD'));
  assert.deepEqual(ofKind(base, 'Secret'), [], 'the base contains no Secret');
  const secret = ofKind(example, 'Secret');
  assert.equal(secret.length, 1);
  const secretKeys = Object.keys(secret[0]!.data ?? {});
  for (const name of ['worker', 'inbox', 'init', 'codec'] as const) {
    const o = workload(example, name);
    const env = environment(example, o);
    const baseEnv = environment(base, workload(base, name));
    for (const [key, value] of composeSettings(name)) {
      // Compose names always-mounted secret files that stay empty without an external Temporal;
      // in the cluster the temporal-ca / temporal-mtls components add them (rendered below).
      if (BY_TLS_COMPONENTS.has(key)) continue;
      assert.ok(env.has(key), `${name} sets ${key} as compose's ${name} does`);
      // What the base sets is what compose uses when the operator sets nothing.
      if (value !== undefined && baseEnv.has(key) && !CLUSTER_SPECIFIC.test(key)) assert.equal(baseEnv.get(key), value, `${name}: ${key}`);
    }
    for (const key of env.keys()) assert.ok(!secretSettings.includes(key), `${name} sets ${key} in plain text`);
    if (env.has('DATABASE_URL')) assert.equal(new URL(env.get('DATABASE_URL')!).password, '', 'DATABASE_URL carries no password');
    // Every *_FILE names a file of a mounted Secret, and the Secret has that key.
    const c = appContainer(o);
    const spec = podSpec(o);
    for (const [key, file] of env) {
      if (!key.endsWith('_FILE')) continue;
      assert.ok(secretSettings.includes(key.slice(0, -'_FILE'.length)) || key === 'INBOX_ADMIN_PASSWORD_FILE', `${name}: ${key} is read`);
      const mount = c.volumeMounts?.find((m) => file.startsWith(`${m.mountPath}/`));
      const volume = spec.volumes?.find((v) => v.name === mount?.name);
      const item = volume?.secret?.items?.find((i) => path.join(mount!.mountPath, i.path) === file);
      assert.ok(item, `${name}: ${key}=${file} is an item of a mounted Secret`);
      assert.equal(volume!.secret!.secretName, secret[0]!.metadata.name);
      assert.ok(secretKeys.includes(item.key), `the Secret has ${item.key}`);
    }
  }
  // What setup's own stack writes with make-secrets.sh is what the overlay's generator reads.
  const written = [...read('deploy/make-secrets.sh').matchAll(/^write (\w+) /gm)].map((m) => m[1]);
  for (const key of secretKeys.filter((k) => k !== 'temporal_api_key')) assert.ok(written.includes(key), `make-secrets.sh writes ${key}`);
  // The secret files of an installation are never committed.
  assert.equal(read('deploy/kubernetes/overlays/example/secrets/.gitignore').split('\n')[0], '*');
});

test('pods run as the image user, read-only, with the state volume shared by the worker replicas where the settings point', () => {
  const pvc = ofKind(example, 'PersistentVolumeClaim');
  assert.equal(pvc.length, 1);
  assert.ok(pvc[0]!.spec!.accessModes!.includes('ReadWriteMany'), 'replicas on several nodes share the token files');
  for (const name of ['worker', 'inbox', 'codec', 'init'] as const) {
    const o = workload(example, name);
    const spec = podSpec(o);
    assert.equal(spec.securityContext?.runAsNonRoot, true, name);
    assert.equal(spec.securityContext?.runAsUser, APP_UID, name);
    assert.equal(appContainer(o).securityContext?.readOnlyRootFilesystem, true, name);
    assert.equal(appContainer(o).securityContext?.allowPrivilegeEscalation, false, name);
    const env = environment(example, o);
    const knowledge = env.get('KNOWLEDGE_DIR');
    if (name === 'codec') continue;
    const stateVolume = spec.volumes?.find((v) => v.persistentVolumeClaim?.claimName === pvc[0]!.metadata.name);
    const mount = appContainer(o).volumeMounts?.find((m) => m.name === stateVolume?.name);
    assert.ok(mount && knowledge?.startsWith(`${mount.mountPath}/`), `${name}: KNOWLEDGE_DIR is on the state volume`);
    // Token rotation writes there; the inbox only reads.
    assert.equal(mount.readOnly ?? false, name === 'inbox', `${name}: state volume ${mount.readOnly ? 'read-only' : 'writable'}`);
  }
  assert.match(read('Containerfile'), new RegExp(`useradd --system --uid ${APP_UID} --gid email-rag`));
});

test('the init Job runs email-rag-init once per release, retried a few times, and is cleaned up', () => {
  const init = workload(example, 'init');
  assert.equal(init.kind, 'Job');
  assert.ok((init.spec!.backoffLimit ?? 6) <= 6 && init.spec!.backoffLimit! >= 1);
  assert.ok(init.spec!.ttlSecondsAfterFinished! > 0);
  assert.equal(podSpec(init).restartPolicy, 'Never');
  const command = appContainer(init).command!.join(' ');
  assert.match(command, /^tini -- /, 'tini forwards signals, as the image entrypoint does');
  assert.match(command, /exec email-rag-init'?$/);
  const env = environment(example, init);
  assert.ok(env.has('INBOX_ADMIN_USER') && env.has('TEMPORAL_RETENTION_DAYS'));
  // docs/kubernetes.md applies the init's part first with a label selector: it must bring all the
  // Job needs (its ConfigMap, its Secret, the state volume) and nothing that runs beside it.
  const firstPhase = example.filter((o) => ['config', 'state', 'init'].includes(component(o) ?? ''));
  assert.deepEqual(firstPhase.map((o) => o.kind).sort(), ['ConfigMap', 'Job', 'PersistentVolumeClaim', 'Secret']);
  const names = new Set(firstPhase.map((o) => o.metadata.name));
  const spec = podSpec(init);
  for (const v of spec.volumes ?? []) {
    const needed = v.secret?.secretName ?? v.persistentVolumeClaim?.claimName;
    if (needed) assert.ok(names.has(needed), `the first phase brings ${needed}`);
  }
  for (const from of appContainer(init).envFrom ?? []) assert.ok(names.has(from.configMapRef!.name));
  // The long-running apps run the image's entrypoint with compose's commands.
  for (const [name, args] of [
    ['worker', ['worker']],
    ['inbox', ['inbox']],
    ['codec', ['codec-server']],
  ] as const) {
    const c = appContainer(workload(example, name));
    assert.equal(c.command, undefined, name);
    assert.deepEqual(c.args, args, name);
  }
  // Every object of the overlay is in its namespace.
  for (const o of example) assert.equal(o.metadata.namespace, 'email-rag', `${o.kind}/${o.metadata.name}`);
});

test('the mTLS and CA components give the Temporal clients the certificate files, and only them', () => {
  const secretOf: Record<string, string> = {
    TEMPORAL_TLS_CERT: 'email-rag-temporal-tls',
    TEMPORAL_TLS_KEY: 'email-rag-temporal-tls',
    TEMPORAL_TLS_CA: 'email-rag-temporal-ca',
  };
  for (const name of ['worker', 'inbox', 'init'] as const) {
    const o = workload(mtls, name);
    const env = environment(mtls, o);
    const c = appContainer(o);
    for (const [key, secretName] of Object.entries(secretOf)) {
      const file = env.get(key);
      const mount = c.volumeMounts?.find((m) => file?.startsWith(`${m.mountPath}/`));
      const volume = podSpec(o).volumes?.find((v) => v.name === mount?.name);
      assert.equal(volume?.secret?.secretName, secretName, `${name}: ${key}`);
      assert.ok(
        volume.secret.items?.some((i) => path.join(mount!.mountPath, i.path) === file),
        `${name}: ${key} is an item of ${secretName}`,
      );
    }
    // The app's own secrets are still there: the patch adds, it does not replace.
    assert.ok(env.has('DATABASE_PASSWORD_FILE') && c.volumeMounts!.some((m) => m.mountPath === '/run/secrets'), name);
  }
  assert.ok(!environment(mtls, workload(mtls, 'codec')).has('TEMPORAL_TLS_CERT'), 'the codec server talks to no Temporal');
  assert.ok(!environment(example, workload(example, 'worker')).has('TEMPORAL_TLS_CERT'), 'the example overlay has no mTLS');
});

test("spamd: one replica with its Bayes database on a claim of its own, reached by the worker's TRIAGE_SPAMD, tagged by the release", () => {
  const release = (parseYaml(read('deploy/kubernetes/overlays/example/release.yaml')) as { data: { tag: string } }).data.tag;
  for (const objects of [base, example]) {
    const [spamd, ...more] = ofKind(objects, 'StatefulSet');
    assert.ok(spamd && more.length === 0, 'one StatefulSet: spamd');
    assert.equal(component(spamd), 'spamd');
    assert.equal(spamd.spec!.replicas, 1, 'one replica: the Bayes database is one set of files');
    const spec = spamd.spec as unknown as {
      volumeClaimTemplates: Array<{ metadata: { name: string }; spec: { accessModes: string[] } }>;
      template: { spec: PodSpec };
    };
    const claim = spec.volumeClaimTemplates.find((t) => t.metadata.name === 'spamd-data');
    assert.ok(claim, 'a claim for the Bayes database');
    const c = spec.template.spec.containers.find((x) => x.name === 'spamd')!;
    assert.ok(c.volumeMounts?.some((m) => m.name === 'spamd-data' && m.mountPath === '/var/lib/spamd'));
    assert.equal(c.securityContext?.readOnlyRootFilesystem, true);
    assert.equal(spec.template.spec.securityContext?.runAsNonRoot, true);
    const start = read('deploy/container/spamd-start.sh');
    const port = Number(/SPAMD_PORT:=(\d+)/.exec(start)?.[1]);
    assert.equal(c.ports?.find((p) => p.name === 'spamd')?.containerPort, port, 'the port spamd-start listens on');
    // The worker reaches it through the Service on spamd's own port (TRIAGE_SPAMD names none).
    const service = ofKind(objects, 'Service').find((s) => s.metadata.name === spamd.metadata.name);
    assert.ok(service, 'a Service of the same name');
    const servicePorts = (service.spec as unknown as { ports: Array<{ port: number; targetPort: string }> }).ports;
    assert.deepEqual(
      servicePorts.map((p) => [p.port, p.targetPort]),
      [[783, 'spamd']],
    );
    const problems: string[] = [];
    const asked = readSpamdSettings(Object.fromEntries(environment(objects, workload(objects, 'worker'))), problems);
    assert.deepEqual(problems, []);
    assert.equal(asked?.host, service.metadata.name);
    assert.equal(asked?.port, 783);
    assert.equal(asked?.learn, true);
    if (objects === example) {
      assert.equal(c.image, `registry.example.com/support/email-rag-spamd:${release}`);
    }
  }
});
