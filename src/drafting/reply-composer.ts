import type { DraftClaim, DraftContextItem, DraftRequest } from './drafter.port';
import { DEFAULT_MIN_ANSWER_COSINE, answeringItems, type Judged } from './answer-selection';
import { detectLanguage, detectLanguageOr } from '../platform/language';
import { sentencesOf, inverseFrequencies, overlapScore, terms } from '../retrieval';
import { REPLY_WORDING, type ReplyLanguage } from './reply-wording';

export { sentencesOf } from '../retrieval';

/**
 * Composes a reply from retrieved context without a model: the passages retrieval matched best
 * (by meaning where it compared vectors, else by the customer's words), cut down to their most
 * relevant sentences, framed by a greeting and closing in the mail's language. A
 * passage in the other language is quoted as it is and named as such. It never quotes other mail:
 * the thread's and the correspondent's history is only referred to, and our earlier replies to
 * others (masked) lend sentences only when those carry nothing that looks like personal data.
 */
export interface ComposedReply {
  body: string;
  language: ReplyLanguage;
  usedSourceIds: string[];
  confidence: number;
  /** False when no passage answered the question: the reply says so and a person must look. */
  answered: boolean;
  /** Cited passages written in the other language than the reply (quoted as they are). */
  otherLanguageSourceIds: string[];
  /** The case's other open mails this reply answers too, each with a passage of its own. */
  answersEmailIds: string[];
  /** Every quoted sentence with the passage it was taken from: the composer knows exactly. */
  claims: DraftClaim[];
}

export interface ComposeSettings {
  /** Vector similarity from which a passage answers (see answer-selection.ts); depends on the embedding model. */
  minAnswerCosine?: number;
}

/** Knowledge is ours and meant to be quoted; a masked reply to someone else is second choice. */
const ANSWER_WEIGHT: Partial<Record<DraftContextItem['kind'], number>> = { knowledge: 1, own_reply: 0.7 };
/**
 * Earlier mail of this thread or correspondent. `similar` passages are left out: whose they are is
 * up to retrieval's scoping, and a reply must not call someone else's mail the customer's own.
 */
const HISTORY_KINDS = new Set<DraftContextItem['kind']>(['thread', 'sender']);
const MAX_PASSAGES = 2;
const MAX_SENTENCES_PER_PASSAGE = 2;
/** Addresses, long numbers (accounts, phones, customer numbers), mask placeholders, bank words. */
const PERSONAL_DATA = /@|\d{4,}|\d[\d ]{6,}\d|\[[^[\]]*\]|\*{3}|<[^<>]*>|\b(iban|bic|konto(nummer)?|account number)\b/i;

interface Chosen {
  id: string;
  sentences: string[];
  /** Set when the passage is in the other language than the reply. */
  otherLanguage?: ReplyLanguage;
}

/** The answer to another open mail of the case: its subject, and the passage that answers it. */
interface AlsoAnswered {
  emailId: string;
  subject: string;
  chosen: Chosen;
}

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

/**
 * The sentences of a passage to quote, in their original order: in the reply's language those
 * that share most of the customer's words; in the other language, or when no sentence shares a
 * word (a passage found by meaning), its leading sentences, which state what it is about.
 */
function extract(c: Judged, language: ReplyLanguage, query: Set<string>, idf: Map<string, number>): string[] {
  const sentences = sentencesOf(c.item.text, c.item.title).filter((s) => c.item.kind === 'knowledge' || !PERSONAL_DATA.test(s));
  if (c.language === language) {
    const best = sentences
      .map((s, i) => ({ s, i, score: overlapScore(query, terms(s), idf) }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, MAX_SENTENCES_PER_PASSAGE);
    if (best.length > 0) return best.sort((a, b) => a.i - b.i).map((x) => x.s);
  }
  return sentences.slice(0, MAX_SENTENCES_PER_PASSAGE);
}

/**
 * Confidence gained per unit of cosine above the answer threshold: the cap (0.6) is reached 0.3
 * above it, where USE multilingual v3's best answers lie (labelled set up to 0.60, demo up to 0.80,
 * threshold 0.26). multilingual-e5, whose answers crowd into 0.82–0.93, used 2.5.
 */
const CONFIDENCE_PER_COSINE = 1;

/** Sentences from a word match are a starting point for a person; a close match by meaning a better one. */
function confidenceOf(best: Judged | undefined, minCosine: number, crossLanguage: boolean): number {
  if (!best) return 0;
  const raw =
    best.by === 'cosine'
      ? Math.min(0.6, 0.3 + CONFIDENCE_PER_COSINE * (best.strength - minCosine))
      : Math.min(0.5, 0.25 + 0.05 * best.matched);
  // The reviewer must read a quote in the other language before it goes out.
  return Math.max(0.2, raw - (crossLanguage ? 0.1 : 0));
}

/** The passage's sentences; which passage they come from is the claims' to say, never the text's. */
function passageText(t: (typeof REPLY_WORDING)[ReplyLanguage], c: Chosen): string {
  const text = c.sentences.join(' ');
  return c.otherLanguage ? `${t.otherLanguageIntro(c.otherLanguage)}\n${t.quote(text)}` : text;
}

function writeBody(
  req: Pick<DraftRequest, 'from' | 'subject'>,
  language: ReplyLanguage,
  chosen: readonly Chosen[],
  historyId: string | undefined,
  also: readonly AlsoAnswered[] = [],
): string {
  const t = REPLY_WORDING[language];
  const paragraphs: string[] = [t.greeting(cleanName(req.from.name)), t.thanks(cleanSubject(req.subject))];
  if (chosen.length > 0) {
    paragraphs[1] = `${paragraphs[1]} ${t.answerIntro}`;
    for (const c of chosen) paragraphs.push(passageText(t, c));
  } else {
    paragraphs.push(t.nothing);
  }
  for (const a of also) paragraphs.push(`${t.alsoAbout(cleanSubject(a.subject))}\n${passageText(t, a.chosen)}`);
  if (historyId) paragraphs.push(t.history);
  if (chosen.length > 0 || also.length > 0) paragraphs.push(t.followUp);
  paragraphs.push(t.closing);
  return paragraphs.join('\n\n');
}

/**
 * The polite non-answer of a mailbox's language: greeting, thanks, "we found nothing, a person
 * will get back to you", closing — the reply the offline drafter writes when nothing answers,
 * without a name or subject. A replay measures it against the team's replies as the floor of
 * similarity that mere greeting and closing reach (src/replay/replay-measures.ts).
 */
export function nonAnswerReply(language: ReplyLanguage): string {
  return writeBody({ from: { name: '', address: '' }, subject: '' }, language, [], undefined);
}

export function composeReply(
  req: Pick<DraftRequest, 'emailId' | 'from' | 'subject' | 'text' | 'context' | 'language'>,
  settings: ComposeSettings = {},
): ComposedReply {
  const minCosine = settings.minAnswerCosine ?? DEFAULT_MIN_ANSWER_COSINE;
  const question = questionOf(req.subject, req.text);
  const language = req.language ? detectLanguageOr(question, req.language) : detectLanguage(question);
  // The opening of a long mail says what it is about; the bound keeps the scoring cheap.
  const query = terms(question.slice(0, 5_000));
  const all = req.context.filter((c) => c.sourceId !== req.emailId && c.text.trim() !== '');
  // Passages found for another open mail's question were ranked against that mail, not this one.
  const context = all.filter((c) => c.forEmailId === undefined);
  const judgeAmong = (
    items: DraftContextItem[],
    weight: (c: DraftContextItem) => number,
    asked: Set<string> = query,
  ): { found: Judged[]; idf: Map<string, number> } => {
    const idf = inverseFrequencies(
      asked,
      items.map((c) => terms(`${c.title ?? ''}\n${c.text}`)),
    );
    return { found: answeringItems(items, { query: asked, idf, language, minCosine, weight }), idf };
  };

  const answers = judgeAmong(
    context.filter((c) => ANSWER_WEIGHT[c.kind] !== undefined),
    (c) => ANSWER_WEIGHT[c.kind] ?? 0,
  );
  const chosen: Chosen[] = [];
  const judgedChosen: Judged[] = [];
  for (const c of answers.found) {
    if (chosen.length >= MAX_PASSAGES) break;
    const sentences = extract(c, language, query, answers.idf);
    if (sentences.length === 0) continue;
    chosen.push({ id: c.item.sourceId, sentences, otherLanguage: c.language === language ? undefined : c.language });
    judgedChosen.push(c);
  }
  const history = judgeAmong(
    // Another open mail of the case is answered below or waits for its own reply: never "taken into account".
    context.filter((c) => HISTORY_KINDS.has(c.kind) && !c.openInCase),
    () => 1,
  ).found[0];

  // Each other open mail of the case is answered only by a passage found for its own question.
  const also: AlsoAnswered[] = [];
  for (const mail of context.filter((c) => c.openInCase)) {
    const subject = mail.title ?? '';
    const asked = terms(questionOf(subject, mail.text).slice(0, 5_000));
    const theirs = judgeAmong(
      all.filter((c) => c.forEmailId === mail.sourceId),
      (c) => ANSWER_WEIGHT[c.kind] ?? 0,
      asked,
    );
    // Claiming to answer a mail is a promise: the passage must be close in meaning and its quoted
    // sentences must share the mail's own words; of those, the one sharing most answers it.
    let best: { c: Judged; sentences: string[]; overlap: number } | undefined;
    for (const c of theirs.found.slice(0, MAX_PASSAGES + 1)) {
      const sentences = extract(c, language, asked, theirs.idf);
      const overlap = sentences.reduce((sum, x) => sum + overlapScore(asked, terms(x), theirs.idf), 0);
      if (overlap > 0 && (!best || overlap > best.overlap)) best = { c, sentences, overlap };
    }
    if (!best) continue;
    also.push({
      emailId: mail.sourceId,
      subject,
      chosen: {
        id: best.c.item.sourceId,
        sentences: best.sentences,
        otherLanguage: best.c.language === language ? undefined : best.c.language,
      },
    });
  }
  const quoted = [...chosen, ...also.map((a) => a.chosen)];
  const otherLanguageSourceIds = quoted.filter((c) => c.otherLanguage).map((c) => c.id);
  return {
    claims: quoted.flatMap((c) => c.sentences.map((sentence) => ({ sentence, sourceIds: [c.id] }))),
    body: writeBody(req, language, chosen, history?.item.sourceId, also),
    language,
    answersEmailIds: also.map((a) => a.emailId),
    usedSourceIds: [...new Set([...chosen.map((c) => c.id), ...also.map((a) => a.chosen.id), ...(history ? [history.item.sourceId] : [])])],
    confidence: chosen.length > 0 ? confidenceOf(judgedChosen[0], minCosine, otherLanguageSourceIds.length > 0) : history ? 0.15 : 0.1,
    answered: chosen.length > 0,
    otherLanguageSourceIds,
  };
}
