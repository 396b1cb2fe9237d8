/**
 * A draft's citations as data, never as text the customer reads. A model may write a source into
 * the reply itself — "(Quelle: knowledge:faq/rechnung.md#1)", "[Source: attachment:RE.pdf#p1]",
 * a bare id, or "[1]" markers with a list "[1] knowledge:…" below. Before a draft is stored, each
 * such note is taken out of the body and kept as a claim: the sentence it stood by and the ids it
 * named, so the grounding check still sees what the model cited and the review page shows the
 * source beside the sentence. Parentheses that name no internal id ("(Quelle: Preisliste 2025)")
 * are the writer's words and stay. Pure.
 */
import type { DraftClaim } from './drafter.port';
import { draftSentences, sentenceKind } from './claim-sentences';
import { mayNameSourceIds, sourceIdPattern } from './source-ids';

export interface SeparatedCitations {
  /** The body without any internal id: what the reviewer sees, approves and the customer reads. */
  body: string;
  /** The drafter's claims (their sentences cleaned the same way) and one per sentence a note stood by. */
  claims: DraftClaim[];
  /** Every id taken out of the text, each once. */
  removedIds: string[];
}

/** A label before a source ("Quelle:", "Sources:", "siehe", "vgl.") that goes with it. */
const LABEL = String.raw`(?:(?:quellen?|sources?|references?|referenzen|belege?|siehe|see|vgl\.|cf\.)\s*:?\s*)?`;
/** One footnote marker or a run of them: "[1]", "[1, 2]", "[1][3]". */
const MARKERS = /[ \t]*(?:\[\d{1,2}(?:\s*,\s*\d{1,2})*\])+/gu;
/** A numbered line of a source list: "[1] knowledge:…", "1. knowledge:…", "[2]: Quelle: attachment:…". */
const LIST_LINE = /^\s*(?:\[(\d{1,2})\]|(\d{1,2})[.)])\s*(?::\s*)?(\S.*|)$/u;
/** A heading of a source list with nothing after it. */
const LIST_HEADING = /^\s*(?:quellen|sources|references|referenzen|belege)\s*(?::\s*)?$/iu;

/** The numbered source list of a body ("[1] knowledge:…" lines, their heading): its ids by number, and the lines left. */
function splitSourceList(lines: string[], ids: RegExp): { kept: string[]; numbered: Map<string, string[]> } {
  const numbered = new Map<string, string[]>();
  const removed = new Set<number>();
  lines.forEach((line, i) => {
    const m = LIST_LINE.exec(line);
    if (!m) return;
    const found = [...line.matchAll(ids)].map((x) => x[0]);
    // Nothing but a source: a label, the ids, a title after them at most, no sentence.
    const rest = m[3]!.replace(ids, ' ').replace(new RegExp(`^\\s*${LABEL}`, 'iu'), '');
    if (found.length === 0 || rest.replace(/[\s,;:()[\]"„“”-]/gu, '').length > 40 || /[.!?]\s*$/.test(rest.trim())) return;
    numbered.set(m[1] ?? m[2]!, found);
    removed.add(i);
  });
  // A heading whose list was taken away goes with it.
  lines.forEach((line, i) => {
    if (!LIST_HEADING.test(line)) return;
    let next = i + 1;
    while (next < lines.length && lines[next]!.trim() === '') next++;
    if (removed.has(next)) removed.add(i);
  });
  return { kept: lines.filter((_, i) => !removed.has(i)), numbered };
}

interface Note {
  ids: string[];
  /** True when the note stood alone on its line: it names the sources of the lines above. */
  ownLine: boolean;
}

/** The text with its notes taken out, and each note with its place in the text left. */
function takeNotes(text: string, ids: RegExp, numbered: Map<string, string[]>): { clean: string; notes: Array<Note & { at: number }> } {
  const notes: Array<Note & { at: number }> = [];
  const note = new RegExp(`[ \\t]*\\([^()\\n]*\\)|[ \\t]*\\[[^\\[\\]\\n]*\\]|${MARKERS.source}|[ \\t]*${LABEL}(?:${ids.source})`, 'giu');
  let clean = '';
  let at = 0;
  for (const m of text.matchAll(note)) {
    const found = [...m[0].matchAll(ids)].map((x) => x[0]);
    const markers = found.length === 0 && /^[ \t]*\[\d/.test(m[0]) ? [...m[0].matchAll(/\d{1,2}/g)].map((x) => x[0]) : [];
    const fromMarkers = markers.flatMap((n) => numbered.get(n) ?? []);
    if (found.length === 0 && fromMarkers.length === 0) continue;
    clean += text.slice(at, m.index);
    at = m.index + m[0].length;
    const lineStart = clean.lastIndexOf('\n') + 1;
    const lineEnd = text.indexOf('\n', at);
    const ownLine = clean.slice(lineStart).trim() === '' && text.slice(at, lineEnd < 0 ? undefined : lineEnd).trim() === '';
    notes.push({ ids: [...found, ...fromMarkers], ownLine, at: clean.length });
  }
  return { clean: clean + text.slice(at), notes };
}

/** Where draftSentences cuts a line into sentences. */
const SENTENCE_CUT = /(?<=[.!?:])\s+(?=[\p{Lu}\d„"“(])/u;

/**
 * The sentences a note cites, in the clean text: the one it stood in (a note within or at the end
 * of a sentence), or, alone on its line, those of its paragraph since the last note.
 */
function citedSentences(clean: string, at: number, since: number, ownLine: boolean): string[] {
  const before = clean.slice(0, at);
  const paragraphStart = Math.max(since, before.lastIndexOf('\n\n') + 1);
  const keep = (s: string) => /\p{L}{2}/u.test(s) && sentenceKind(s) !== 'formula';
  if (ownLine) return draftSentences(clean.slice(paragraphStart, at)).filter(keep);
  const head =
    before
      .slice(Math.max(paragraphStart, before.lastIndexOf('\n') + 1))
      .split(SENTENCE_CUT)
      .at(-1) ?? '';
  const tail = /^[^\n]*?(?:[.!?](?=\s|$)|$)/u.exec(clean.slice(at))?.[0] ?? '';
  const sentence = `${head}${tail}`.trim();
  return keep(sentence) ? [sentence] : [];
}

const key = (sentence: string): string =>
  sentence
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** One claim per sentence, with every id any of its notes named. */
function merged(claims: readonly DraftClaim[]): DraftClaim[] {
  const bySentence = new Map<string, DraftClaim>();
  for (const c of claims) {
    const k = key(c.sentence);
    const had = bySentence.get(k);
    if (had) had.sourceIds = [...new Set([...had.sourceIds, ...c.sourceIds])];
    else bySentence.set(k, { sentence: c.sentence, sourceIds: [...c.sourceIds] });
  }
  return [...bySentence.values()];
}

function tidy(text: string): string {
  return text
    .replace(/(?<![ \t])[ \t]+$/gm, '')
    .replace(/^[ \t]*[-*•:][ \t]*$/gm, '')
    .replace(/(?<![ \t])[ \t]+([.,;:!?])/g, '$1')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|(?<!\n)\n+$/g, '');
}

/** Takes the internal ids out of a drafted body (and the drafter's claims) and keeps them as claims. */
export function separateCitations(
  body: string,
  knownIds: readonly string[],
  drafterClaims: readonly DraftClaim[] = [],
): SeparatedCitations {
  // Most drafts name no id at all: then nothing is taken out, and the patterns need not be built.
  const mayName = (text: string) => mayNameSourceIds(text, knownIds);
  if (!mayName(body) && !drafterClaims.some((c) => mayName(c.sentence))) {
    const claims = drafterClaims.map((c) => ({ sentence: tidy(c.sentence), sourceIds: c.sourceIds }));
    return { body, claims: merged(claims), removedIds: [] };
  }
  const ids = sourceIdPattern(knownIds);
  const { kept, numbered } = splitSourceList(body.split(/\r?\n/), ids);
  const { clean, notes } = takeNotes(kept.join('\n'), ids, numbered);
  const claims: DraftClaim[] = drafterClaims.map((c) => ({
    sentence: tidy(takeNotes(c.sentence, ids, numbered).clean),
    sourceIds: c.sourceIds,
  }));
  let since = 0;
  for (const n of notes) {
    for (const sentence of citedSentences(clean, n.at, since, n.ownLine))
      claims.push({ sentence: tidy(sentence), sourceIds: [...new Set(n.ids)] });
    since = n.at;
  }
  const removedIds = [...new Set([...notes.flatMap((n) => n.ids), ...[...numbered.values()].flat()])];
  // Untouched when nothing was taken out: a body is never reformatted for nothing.
  return { body: removedIds.length === 0 ? body : tidy(clean), claims: merged(claims), removedIds };
}
