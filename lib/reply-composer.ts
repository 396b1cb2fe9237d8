import type { DraftContextItem, DraftRequest } from '../ports/drafter';
import { detectLanguage, detectLanguageOr } from './language';
import { inverseFrequencies, matchedTerms, overlapScore, terms } from './term-overlap';

/**
 * Composes a reply from retrieved context without a model: the knowledge passages that share
 * most of the customer's words, cut down to their most relevant sentences, each cited, framed by a
 * greeting and closing in the mail's language. It never quotes other mail: the thread's and the
 * correspondent's history is only referred to, and our earlier replies to others (masked) lend sentences only
 * when those carry nothing that looks like personal data.
 */
export interface ComposedReply {
  body: string;
  language: 'de' | 'en';
  usedSourceIds: string[];
  confidence: number;
  /** False when no passage answered the question: the reply says so and a person must look. */
  answered: boolean;
}

/** Knowledge is ours and meant to be quoted; a masked reply to someone else is second choice. */
const ANSWER_WEIGHT: Partial<Record<DraftContextItem['kind'], number>> = { knowledge: 1, own_reply: 0.7 };
/**
 * Earlier mail of this thread or correspondent. `similar` passages are left out: whose they are is
 * up to retrieval's scoping, and a reply must not call someone else's mail the customer's own.
 */
const HISTORY_KINDS = new Set<DraftContextItem['kind']>(['thread', 'sender']);
/** A passage must share at least this many of the customer's content words to count. */
const MIN_MATCHED_TERMS = 2;
const MAX_PASSAGES = 2;
const MAX_SENTENCES_PER_PASSAGE = 2;
const MAX_SENTENCE_CHARS = 400;
/** Addresses, long numbers (accounts, phones, customer numbers), mask placeholders, bank words. */
const PERSONAL_DATA = /@|\d{4,}|\d[\d ]{6,}\d|\[[^\]]*\]|\*{3}|<[^>]*>|\b(iban|bic|konto(nummer)?|account number)\b/i;

interface Candidate {
  item: DraftContextItem;
  score: number;
  matched: number;
}

const TEXT = {
  de: {
    greeting: (name: string) => (name ? `Guten Tag ${name},` : 'Guten Tag,'),
    thanks: (subject: string) => (subject ? `vielen Dank für Ihre Nachricht zu „${subject}“.` : 'vielen Dank für Ihre Nachricht.'),
    answerIntro: 'Dazu können wir Ihnen Folgendes sagen:',
    source: (id: string) => `(Quelle: ${id})`,
    history: (id: string) => `Die bisherige Korrespondenz zu diesem Thema haben wir dabei berücksichtigt (Quelle: ${id}).`,
    nothing:
      'Zu Ihrer Frage haben wir in unserer Wissensdatenbank und in Ihrem bisherigen Schriftverkehr leider nichts Passendes gefunden. ' +
      'Eine Mitarbeiterin oder ein Mitarbeiter prüft Ihr Anliegen und meldet sich so bald wie möglich persönlich bei Ihnen.',
    followUp: 'Falls damit noch etwas offen ist, antworten Sie einfach auf diese E-Mail.',
    closing: 'Mit freundlichen Grüßen\nIhr Support-Team',
  },
  en: {
    greeting: (name: string) => (name ? `Hello ${name},` : 'Hello,'),
    thanks: (subject: string) => (subject ? `thank you for your message about "${subject}".` : 'thank you for your message.'),
    answerIntro: 'Here is what we can tell you:',
    source: (id: string) => `(Source: ${id})`,
    history: (id: string) => `We have also taken the earlier correspondence on this topic into account (Source: ${id}).`,
    nothing:
      'Unfortunately we found nothing relevant to your question in our knowledge base or in your previous correspondence. ' +
      'A member of our team will look into it and get back to you personally as soon as possible.',
    followUp: 'If anything is still unclear, simply reply to this email.',
    closing: 'Best regards\nThe support team',
  },
} as const;

/** What the customer wrote now: subject and body, without quoted history and signature. */
export function questionOf(subject: string, text: string): string {
  const kept: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (/^-- ?$/.test(line) || /^-{3,}\s*(original|ursprüngliche)/i.test(line) || /^(am|on)\b.{0,120}\b(schrieb|wrote)\b/i.test(line))
      break;
    if (!line.trimStart().startsWith('>')) kept.push(line);
  }
  return `${subject.replace(/^((re|aw|fwd?|wg)\s*:\s*)+/i, '')}\n${kept.join('\n')}`;
}

/**
 * Sentences of a passage: wrapped lines joined, headings dropped, list items kept apart. A passage
 * whose line breaks were collapsed ("# Billing ## Double charge If an invoice …") still works when
 * its headings are given as `title`: those are cut off; other inline headings lose only their marks.
 */
export function sentencesOf(text: string, title = ''): string[] {
  const headings = title
    .split(/\s+[›>/|–-]\s+/)
    .map((h) => h.replace(/^#+\s*/, '').trim())
    .filter((h) => h.length > 0)
    .sort((a, b) => b.length - a.length);
  const segments: string[] = [];
  let current = '';
  const flush = (): void => {
    if (current.trim()) segments.push(current);
    current = '';
  };
  for (const line of text.split(/\r?\n/)) {
    const inline = /\S\s+#{1,6}\s/.test(line) || (/^\s*#/.test(line) && line.length > 120);
    if (inline) {
      flush();
      for (const piece of line.split(/(?:^|\s)#{1,6}\s+/)) {
        const heading = headings.find((h) => piece.trimStart().toLowerCase().startsWith(h.toLowerCase()));
        segments.push(heading ? piece.trimStart().slice(heading.length) : piece);
      }
      continue;
    }
    const listItem = /^\s*([-*•]|\d+[.)])\s+/.test(line);
    if (/^\s*#/.test(line) || line.trim() === '' || listItem) flush();
    if (/^\s*#/.test(line)) continue;
    current += ` ${line.replace(/^\s*([-*•]|\d+[.)])\s+/, '')}`;
  }
  flush();
  return (
    segments
      .flatMap((seg) => seg.replace(/\*\*|__|`/g, '').split(/(?<=[.!?])\s+(?=[\p{Lu}\d„"])/u))
      .map((s) => s.replace(/\s+/g, ' ').trim())
      // A heading on its own: a few words without a sentence's punctuation.
      .filter((s) => /[.!?:;,)"“]/.test(s) || s.split(' ').length > 8)
      .filter((s) => s.length >= 20 && s.length <= MAX_SENTENCE_CHARS)
  );
}

function cleanName(name: string): string {
  const n = name
    .replace(/[\p{Cc}"<>]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return n.includes('@') || n.length > 60 ? '' : n;
}

function cleanSubject(subject: string): string {
  const s = subject
    .replace(/^((re|aw|fwd?|wg)\s*:\s*)+/i, '')
    .replace(/\s+/g, ' ')
    .trim();
  return s.length > 100 ? `${s.slice(0, 99)}…` : s;
}

function rank(items: DraftContextItem[], query: Set<string>, idf: Map<string, number>, weight: (i: DraftContextItem) => number) {
  return items
    .map((item): Candidate => {
      const doc = terms(`${item.title ?? ''}\n${item.text}`);
      return { item, score: overlapScore(query, doc, idf) * weight(item), matched: matchedTerms(query, doc).length };
    })
    .filter((c) => c.matched >= MIN_MATCHED_TERMS)
    .sort((a, b) => b.score - a.score);
}

/** The best sentences of a passage, in their original order. */
function extract(c: Candidate, query: Set<string>, idf: Map<string, number>): string[] {
  const sentences = sentencesOf(c.item.text, c.item.title).filter((s) => c.item.kind === 'knowledge' || !PERSONAL_DATA.test(s));
  const scored = sentences.map((s, i) => ({ s, i, score: overlapScore(query, terms(s), idf) }));
  const best = scored
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, MAX_SENTENCES_PER_PASSAGE);
  // A passage found through its title alone still answers with its opening sentence.
  const chosen = best.length > 0 ? best : scored.slice(0, 1);
  return chosen.sort((a, b) => a.i - b.i).map((x) => x.s);
}

export function composeReply(req: Pick<DraftRequest, 'emailId' | 'from' | 'subject' | 'text' | 'context' | 'language'>): ComposedReply {
  const question = questionOf(req.subject, req.text);
  const language = req.language ? detectLanguageOr(question, req.language) : detectLanguage(question);
  const t = TEXT[language];
  // The opening of a long mail says what it is about; the bound keeps the scoring cheap.
  const query = terms(question.slice(0, 5_000));
  const context = req.context.filter((c) => c.sourceId !== req.emailId && c.text.trim() !== '');

  const answerItems = context.filter((c) => ANSWER_WEIGHT[c.kind] !== undefined);
  const answerDocs = answerItems.map((c) => terms(`${c.title ?? ''}\n${c.text}`));
  const idf = inverseFrequencies(query, answerDocs);
  // A passage in the other language still helps, but one in the mail's language reads better.
  const answers = rank(answerItems, query, idf, (c) => (ANSWER_WEIGHT[c.kind] ?? 0) * (detectLanguage(c.text) === language ? 1 : 0.5));
  const chosen: Array<{ id: string; sentences: string[] }> = [];
  for (const c of answers) {
    if (chosen.length >= MAX_PASSAGES || (chosen.length > 0 && c.score < 0.6 * (answers[0]?.score ?? 0))) break;
    const sentences = extract(c, query, idf);
    if (sentences.length > 0) chosen.push({ id: c.item.sourceId, sentences });
  }

  const historyItems = context.filter((c) => HISTORY_KINDS.has(c.kind));
  const historyIdf = inverseFrequencies(
    query,
    historyItems.map((c) => terms(c.text)),
  );
  const history = rank(historyItems, query, historyIdf, () => 1)[0];

  const paragraphs: string[] = [t.greeting(cleanName(req.from.name)), t.thanks(cleanSubject(req.subject))];
  if (chosen.length > 0) {
    paragraphs[1] = `${paragraphs[1]} ${t.answerIntro}`;
    for (const c of chosen) paragraphs.push(`${c.sentences.join(' ')}\n${t.source(c.id)}`);
  } else {
    paragraphs.push(t.nothing);
  }
  if (history) paragraphs.push(t.history(history.item.sourceId));
  if (chosen.length > 0) paragraphs.push(t.followUp);
  paragraphs.push(t.closing);

  const best = answers[0];
  return {
    body: paragraphs.join('\n\n'),
    language,
    usedSourceIds: [...chosen.map((c) => c.id), ...(history ? [history.item.sourceId] : [])],
    // Sentences picked by word overlap are a starting point for a person, never a sure answer.
    confidence: chosen.length > 0 && best ? Math.min(0.5, 0.25 + 0.05 * best.matched) : history ? 0.15 : 0.1,
    answered: chosen.length > 0,
  };
}
