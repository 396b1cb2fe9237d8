/**
 * Records the histories of EmailWorkflow's paths (and ImapPollWorkflow's and MailboxWatchWorkflow's,
 * see test/replay/capture/poll-scenarios.ts and watch-scenarios.ts) with the workflow code of this
 * checkout, on real servers (Temporal dev server, the worker process, Dovecot, MariaDB, an SMTP
 * listener, the LLM double), and saves them for the replay test:
 *
 *   node --import tsx test/replay/capture-histories.ts [outDir] [--only name,prefix-*]
 *
 * The default folder is the release's own, `test/replay/histories/<major.minor>` from
 * package.json: cut a release, capture its histories, commit them, and the replay test proves
 * that every later change still replays what that release's workers wrote (see
 * docs/changing-workflows.md). Between releases the set is re-recorded, not patched around.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../src/config';
import { errorMessage } from '../../src/platform/errors';
import { startStack, type TestStack } from '../support/stack';
import { historyToJson } from './capture/history-json';
import { SCENARIOS, type CaptureContext, type Scenario } from './capture/scenarios';
import { tail } from '../support/services/child-process';
import { startSwitchableSmtp, type SwitchableSmtp } from '../support/services/switchable-smtp';
import { startWorkerProcess, type WorkerProcess } from '../support/services/worker-process';

const root = path.resolve(__dirname, '../..');
/** The release whose histories this checkout writes: `1.0` for version 1.0.x. */
const RELEASE = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version
  .split('.')
  .slice(0, 2)
  .join('.');

export interface ManifestEntry {
  workflowId: string;
  expect: string;
  events: number;
  capturedAt: string;
}

/** Machine details that do not take part in replay: worker identities and stack traces with paths. */
function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === 'identity' && typeof v === 'string') out[k] = 'email-rag-worker';
      else if (k === 'stackTrace' && typeof v === 'string') out[k] = '';
      else out[k] = scrub(v);
    }
    return out;
  }
  return value;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? new Set((args[onlyAt + 1] ?? '').split(',')) : undefined;
  const outDir = path.resolve(
    args.find((a, i) => !a.startsWith('--') && i !== onlyAt + 1) ?? path.join(root, 'test/replay/histories', RELEASE),
  );
  // `--only v3-send-*` takes every scenario whose name starts with `v3-send-`.
  const picked = (name: string) => !only || [...only].some((o) => (o.endsWith('*') ? name.startsWith(o.slice(0, -1)) : o === name));
  const scenarios = SCENARIOS.filter((s) => picked(s.name));
  if (scenarios.length === 0) throw new Error(`no scenario matches; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);

  const started = Date.now();
  const say = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);
  let smtp: SwitchableSmtp | undefined;
  let stack: TestStack | undefined;
  let worker: WorkerProcess | undefined;
  let connection: Connection | undefined;
  try {
    smtp = await startSwitchableSmtp();
    stack = await startStack({
      env: {
        SMTP_HOST: smtp.host,
        SMTP_PORT: String(smtp.port),
        // The production queue name, so the histories look like the ones operators have.
        TEMPORAL_TASK_QUEUE: 'email-rag',
        LLM_TIMEOUT_MS: '3000',
        // The wait for the answer after the final dot: a held reply is in doubt after 5 s, not 60 s.
        SMTP_TIMEOUT_MS: '5000',
        // Room for three unfinished emails: the poll scenarios meet a full backlog with six new messages.
        BACKLOG_LIMIT: '3',
        // Push intake (the default, set here so no shell variable turns it off): the watch scenarios need it.
        IMAP_IDLE: 'on',
      },
    });
    const env = stack.env;
    say(`servers up (Temporal ${env.TEMPORAL_ADDRESS}, Dovecot :${env.IMAP_PORT}, SMTP :${smtp.port})`);
    const workerLog = path.join(stack.dir, 'worker.log');
    worker = await startWorkerProcess(env, workerLog);
    say('worker process started');
    connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS! });
    const client = new Client({ connection, namespace: env.TEMPORAL_NAMESPACE });
    const ctx: CaptureContext = {
      client,
      config: loadConfig(env),
      smtp,
      llm: stack.llm,
      dir: stack.dir,
      log: say,
    };

    mkdirSync(outDir, { recursive: true });
    const manifest: Record<string, ManifestEntry> = {};
    const save = async (scenario: Scenario): Promise<void> => {
      const handle = await scenario.run(ctx);
      const description = await handle.describe();
      if (scenario.expect === 'running' && description.status.name !== 'RUNNING') {
        throw new Error(`${scenario.name}: expected an open workflow, got ${description.status.name}`);
      }
      const history = await handle.fetchHistory();
      const json = scrub(historyToJson(history));
      writeFileSync(path.join(outDir, `${scenario.name}.json`), `${JSON.stringify(json, null, 1)}\n`);
      const events = history.events?.length ?? 0;
      manifest[scenario.name] = { workflowId: handle.workflowId, expect: scenario.expect, events, capturedAt: new Date().toISOString() };
      say(`${scenario.name}: ${events} events saved (${handle.workflowId})`);
    };

    // Independent scenarios side by side; those that script a shared server alone.
    const failures: string[] = [];
    const attempt = (s: Scenario) => save(s).catch((err: unknown) => void failures.push(`${s.name}: ${errorMessage(err)}`));
    await Promise.all(scenarios.filter((s) => !s.alone).map(attempt));
    for (const s of scenarios.filter((x) => x.alone)) await attempt(s);

    // A partial capture (--only) keeps the entries of the scenarios it did not run.
    const manifestFile = path.join(outDir, 'manifest.json');
    const previous = JSON.parse(readFileSync(manifestFile, { encoding: 'utf8', flag: 'a+' }) || '{}') as Record<string, ManifestEntry>;
    writeFileSync(manifestFile, `${JSON.stringify({ ...previous, ...manifest }, null, 2)}\n`);
    if (failures.length > 0) {
      for (const f of failures) console.error(`FAILED ${f}`);
      console.error(`worker log (last lines):\n${tail(workerLog, 40)}`);
      process.exitCode = 1;
      return;
    }
    say(`${scenarios.length} histories in ${outDir}`);
  } finally {
    await worker?.kill().catch(() => undefined);
    await connection?.close().catch(() => undefined);
    await smtp?.stop().catch(() => undefined);
    await stack?.stop().catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
