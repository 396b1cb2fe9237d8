import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { readKnowledgeFolder } from '../../src/retrieval/knowledge-folder.file';
import type { KnowledgeFile } from '../../src/retrieval/knowledge.port';

/** The set shipped under test/eval/ (see its README). */
export const DEFAULT_SET_DIR = path.resolve(__dirname, '../../test/eval');

export type Lang = 'de' | 'en';

export interface EvalQuestion {
  id: string;
  lang: Lang;
  subject: string;
  body: string;
  /** The knowledge file that answers it, or null when nothing in the knowledge does. */
  expected: string | null;
  section?: string;
}

export interface LabelledSet {
  knowledge: KnowledgeFile[];
  /** Language of each knowledge file, by its path. */
  languages: Map<string, Lang>;
  questions: EvalQuestion[];
}

const isLang = (v: unknown): v is Lang => v === 'de' || v === 'en';

/**
 * Reads and checks the set: every knowledge file has a language, every question names an
 * existing file (or `none`), ids are unique. A broken label fails loudly instead of counting as a miss.
 */
export function loadLabelledSet(dir = DEFAULT_SET_DIR): LabelledSet {
  const { files } = readKnowledgeFolder(path.join(dir, 'knowledge'));
  const raw = parse(readFileSync(path.join(dir, 'questions.yaml'), 'utf8')) as {
    knowledge?: Record<string, unknown>;
    questions?: Array<Record<string, unknown>>;
  };
  const languages = new Map<string, Lang>();
  for (const [file, lang] of Object.entries(raw.knowledge ?? {})) {
    if (!isLang(lang)) throw new Error(`questions.yaml: knowledge ${file} has language ${String(lang)}, not de or en`);
    languages.set(file, lang);
  }
  for (const f of files) {
    if (!languages.has(f.path)) throw new Error(`questions.yaml: knowledge file ${f.path} has no language`);
  }
  const paths = new Set(files.map((f) => f.path));
  const seen = new Set<string>();
  const questions = (raw.questions ?? []).map((q): EvalQuestion => {
    const id = String(q.id);
    if (seen.has(id)) throw new Error(`questions.yaml: question id ${id} twice`);
    seen.add(id);
    if (!isLang(q.lang)) throw new Error(`questions.yaml: ${id} has language ${String(q.lang)}`);
    const expected = q.expected === 'none' ? null : String(q.expected);
    if (expected !== null && !paths.has(expected)) throw new Error(`questions.yaml: ${id} expects ${expected}, which is not in knowledge/`);
    if (typeof q.subject !== 'string' || typeof q.body !== 'string') throw new Error(`questions.yaml: ${id} needs a subject and a body`);
    return {
      id,
      lang: q.lang,
      subject: q.subject,
      body: q.body,
      expected,
      ...(typeof q.section === 'string' ? { section: q.section } : {}),
    };
  });
  return { knowledge: files, languages, questions };
}
