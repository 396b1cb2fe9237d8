/**
 * Archive import benchmark: generates an mbox of N messages (2–20 KB, every fifth with an
 * attachment; scripts/bench/mbox-corpus.ts), imports it with `email-rag ingest --history` into
 * the real stack (Temporal dev server, MariaDB) and reports messages per second and the CLI's
 * peak resident memory (GNU time), then the same for a re-run that finds everything in already.
 * No worker runs: this measures the import, not the indexing behind it (see `npm run bench`).
 *
 *   node --import tsx scripts/bench/import-archive.ts [--messages 10000]
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import { startStack } from '../../test/support/stack';
import { writeMboxCorpus } from './mbox-corpus';

const run = promisify(execFile);
const { values } = parseArgs({ options: { messages: { type: 'string', default: '10000' } } });
const N = Number(values.messages);
if (!Number.isInteger(N) || N < 1) throw new Error(`--messages must be a positive integer, not ${values.messages}`);

async function timedIngest(env: Record<string, string>, file: string) {
  const t0 = process.hrtime.bigint();
  // GNU time's %M: the peak resident set of the CLI process, in KB.
  const r = await run('/usr/bin/time', ['-f', 'peak-rss-kb %M', process.execPath, 'bin/email-rag.js', 'ingest', file, '--history'], {
    env: { ...process.env, ...env },
    maxBuffer: 1 << 28,
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const rssKb = Number(/peak-rss-kb (\d+)/.exec(r.stderr)?.[1]);
  const summary = r.stderr.split('\n').find((l) => l.startsWith('email-rag ingest: ') && l.includes('message(s) read;')) ?? '';
  return { seconds, rssMb: rssKb / 1024, summary };
}

async function main() {
  const stack = await startStack({ env: { MAX_MESSAGE_BYTES: String(25 * 1024 * 1024) } });
  try {
    const file = path.join(stack.dir, 'archive.mbox');
    const { bytes } = await writeMboxCorpus(file, { messages: N });
    console.log(`archive: ${N} messages, ${(bytes / 1_048_576).toFixed(1)} MB`);
    for (const label of ['first import', 're-run (all in already)']) {
      const r = await timedIngest(stack.env, file);
      console.log(
        `${label}: ${r.seconds.toFixed(1)} s, ${(N / r.seconds).toFixed(0)} messages/s, ` +
          `${(bytes / 1_048_576 / r.seconds).toFixed(1)} MB/s, peak RSS ${r.rssMb.toFixed(0)} MB\n  ${r.summary}`,
      );
    }
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
