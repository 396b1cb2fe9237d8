/**
 * Claim-level grounding: each factual sentence of a draft checked against the context item(s) it
 * rests on, without trusting the drafter. Which sentences are factual is decided by rule
 * (claim-sentences.ts), so a sentence the drafter did not list is still checked, against every
 * context item. A sentence is supported by an item when every key fact of it (numbers, amounts,
 * dates, weekdays, addresses) appears in the item and it says what the item says: a word-for-word
 * quote, else meaning similarity through the embedder when there is one, else the share of its
 * words the item contains. What it cannot see: a paraphrase far from the wording (without an embedder), a
 * negation or a swapped condition that keeps the words ("not free" against "free").
 */
import { type Embedder, sentencesOf, matchedTerms, terms, cosine } from '../retrieval';
import { claimText, draftSentences, isCourtesy, keyFacts, sentenceKind } from './claim-sentences';
import { asksOnly, citesPriorPromise, customerMayGround, isCommitment, isRestatement, restatedPart } from './customer-assertion';
import { GROUNDING_VERDICTS, type GroundingVerdict } from './drafting.contract';
import type { DraftClaim } from './drafter.port';

/**
 * Cosine (USE multilingual v3) from which a passage sentence says what the draft's sentence says.
 * Measured on the labelled set (the offline drafts' quoted sentences against every other retrieved
 * passage): against a passage of another knowledge file median 0.32, 99th percentile 0.53, at most
 * 0.57 (136 pairs); against another passage of the same file at most 0.63. A quote scores 1.0
 * against its own sentence, a close paraphrase typically 0.7–0.9. Another embedding model needs its own.
 */
export const DEFAULT_MIN_SUPPORT_COSINE = 0.62;
/** Without an embedder: the share of the sentence's content words the item must contain. */
export const DEFAULT_MIN_WORD_SHARE = 0.6;
/** Passage sentences compared per item: bounds the embedding of a long attachment page. */
const MAX_ITEM_SENTENCES = 40;
/** Supporting ids kept per sentence (the review page links each). */
const MAX_SUPPORTING = 3;

/** What a sentence may rest on: a context item, or the customer's own mail. */
export interface SupportItem {
  sourceId: string;
  text: string;
  title?: string;
  /**
   * The customer's own mail: it supports a restatement of what the customer asked, never a
   * commitment of ours (src/drafting/customer-assertion.ts).
   */
  fromCustomer?: boolean;
}

export interface CheckedSentence {
  /** Position in the body's sentences (draftSentences). */
  index: number;
  text: string;
  /** null: not a claim (greeting, thanks, a follow-up promise, closing, a sentence without a fact). */
  verdict: GroundingVerdict | null;
  /** The ids the drafter tied it to. */
  citedIds: string[];
  /** The items the check found supporting it (the cited ones first when they do). */
  supportedBy: string[];
  /**
   * Checked because the rules call it factual (or its drafter cited it); false for a sentence
   * checked only because every sentence was (`everySentence`), and for one not checked.
   */
  factual: boolean;
}

export interface GroundingResult {
  sentences: CheckedSentence[];
  claims: number;
  supported: number;
  unsupported: number;
  misTied: number;
  /** Factual sentences that rest on nothing but the customer's own mail and commit us to something. */
  customerAsserted: number;
  /** With `everySentence`: the other sentences checked (neither courtesy nor called factual), and how many of them nothing supports. */
  otherChecked: number;
  otherUnsupported: number;
  /**
   * `quotes` when every claim stands word for word in what it rests on (nothing else was asked),
   * `embedder` when meaning similarity decided the rest, `words` when word overlap did (no
   * embedder, or it failed).
   */
  by: 'quotes' | 'embedder' | 'words';
}

export interface GroundingSettings {
  embedder?: Embedder;
  minCosine?: number;
  minWordShare?: number;
  /**
   * Check every sentence but courtesy (greeting, thanks, closing, a follow-up note, an apology), not
   * only those the rules call factual: what a draft needs before it may go out without a person.
   */
  everySentence?: boolean;
}

const norm = (s: string): string =>
  claimText(s)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** Which body sentence each of the drafter's claims names: the same text, one inside the other, or most words shared. */
export function tieClaims(sentences: readonly string[], claims: readonly DraftClaim[]): Map<number, string[]> {
  const normalised = sentences.map(norm);
  const tied = new Map<number, string[]>();
  for (const claim of claims) {
    const c = norm(claim.sentence);
    if (c.length < 3) continue;
    let index = normalised.findIndex((s) => s === c);
    if (index < 0) index = normalised.findIndex((s) => s.length >= 20 && c.length >= 20 && (s.includes(c) || c.includes(s)));
    if (index < 0) {
      const words = terms(c);
      let best = 0;
      normalised.forEach((s, i) => {
        const share = words.size === 0 ? 0 : matchedTerms(words, terms(s)).length / words.size;
        if (share > best) [best, index] = [share, i];
      });
      if (best < DEFAULT_MIN_WORD_SHARE) index = -1;
    }
    if (index >= 0) tied.set(index, [...new Set([...(tied.get(index) ?? []), ...claim.sourceIds])]);
  }
  return tied;
}

interface PreparedItem {
  sourceId: string;
  fromCustomer: boolean;
  facts: Set<string>;
  words: Set<string>;
  /** The whole text normalised as `norm` does, between spaces: where a word-for-word quote is found. */
  plain: string;
  sentences: string[];
}

function prepare(item: SupportItem): PreparedItem {
  const whole = `${item.title ?? ''}\n${item.text}`;
  const sentences = sentencesOf(item.text, item.title).slice(0, MAX_ITEM_SENTENCES);
  return {
    sourceId: item.sourceId,
    fromCustomer: item.fromCustomer === true,
    facts: keyFacts(whole),
    words: terms(whole),
    plain: ` ${norm(whole)} `,
    // The whole text too: a fact may span two sentences, or stand in a line too short to be one.
    sentences: [...sentences, item.text.slice(0, 2_000)],
  };
}

/** A quote shorter than this (normalised) could be a common phrase, so the embedder decides. */
const MIN_QUOTE_CHARS = 20;

/** The items the claim stands in word for word, each with every key fact of it. */
function quotedBy(claim: string, items: readonly PreparedItem[]): PreparedItem[] {
  const c = norm(claim);
  if (c.length < MIN_QUOTE_CHARS) return [];
  const facts = [...keyFacts(claim)];
  return items.filter((item) => item.plain.includes(` ${c} `) && facts.every((f) => item.facts.has(f)));
}

const quotedByItem = (claim: string, item: PreparedItem): boolean => quotedBy(claim, [item]).length > 0;

/** Per claim and item, the best cosine of the claim against the item's sentences; null when the embedder is off or failed. */
async function similarities(claims: string[], items: PreparedItem[], embedder: Embedder | undefined): Promise<number[][] | null> {
  if (!embedder || claims.length === 0 || items.length === 0) return null;
  try {
    const flat = items.flatMap((it) => it.sentences);
    const [c, p] = await Promise.all([embedder.embed(claims, 'query'), embedder.embed(flat, 'passage')]);
    let at = 0;
    const ranges = items.map((it) => {
      const r = [at, at + it.sentences.length] as const;
      at += it.sentences.length;
      return r;
    });
    return c.map((v) => ranges.map(([from, to]) => Math.max(...p.slice(from, to).map((w) => cosine(v, w)))));
  } catch {
    // Embedder down: words decide, as retrieval does without vectors.
    return null;
  }
}

export async function checkGrounding(
  body: string,
  drafterClaims: readonly DraftClaim[],
  items: readonly SupportItem[],
  settings: GroundingSettings = {},
): Promise<GroundingResult> {
  const minCosine = settings.minCosine ?? DEFAULT_MIN_SUPPORT_COSINE;
  const minShare = settings.minWordShare ?? DEFAULT_MIN_WORD_SHARE;
  const texts = draftSentences(body);
  const cited = tieClaims(texts, drafterClaims);
  const factual = texts.map((t, i) => {
    const kind = sentenceKind(t);
    return kind === 'fact' || (kind === 'plain' && cited.has(i));
  });
  const isClaim = texts.map((t, i) => factual[i]! || (settings.everySentence === true && !isCourtesy(t)));
  const prepared = items.filter((it) => it.text.trim() !== '').map(prepare);
  const claimIndexes = texts.flatMap((_, i) => (isClaim[i] ? [i] : []));
  // A quote of an item it may rest on settles a claim without the embedder: drafts quote their
  // passages often, and embedding every passage sentence for every draft was most of the check's cost.
  // The customer's mail counts only for what it may ground: a restatement, never a commitment of ours.
  const mayUseMail = new Map(claimIndexes.map((i) => [i, customerMayGround(claimText(texts[i]!), factual[i]!)]));
  const quoted = new Map(
    claimIndexes.map((i) => [i, quotedBy(claimText(texts[i]!), prepared).filter((it) => mayUseMail.get(i) || !it.fromCustomer)]),
  );
  const settled = (i: number): boolean => {
    const ids = cited.get(i) ?? [];
    return quoted.get(i)!.some((item) => ids.length === 0 || ids.includes(item.sourceId));
  };
  const open = claimIndexes.filter((i) => !settled(i));
  const cos = await similarities(
    open.map((i) => claimText(texts[i]!)),
    prepared,
    settings.embedder,
  );

  const supports = (i: number, item: PreparedItem): boolean => {
    if (quoted.get(i)!.includes(item)) return true;
    // A settled claim rests on its quotes.
    if (settled(i)) return false;
    const whole = claimText(texts[i]!);
    // Against the customer's mail a restatement or a question is compared without its frame ("You ask whether …", "Would you like …").
    const text = item.fromCustomer && (isRestatement(whole) || asksOnly(whole)) ? restatedPart(whole) : whole;
    const facts = keyFacts(text);
    for (const f of facts) if (!item.facts.has(f)) return false;
    if (cos && cos[open.indexOf(i)]![prepared.indexOf(item)]! >= minCosine) return true;
    if (cos && !(item.fromCustomer && text !== whole)) return false;
    const words = terms(text);
    // Nothing but facts ("Mo–Fr, 9–17 Uhr."): the facts decide.
    if (words.size === 0) return facts.size > 0;
    return matchedTerms(words, item.words).length / words.size >= minShare;
  };

  const sentences: CheckedSentence[] = texts.map((text, index) => ({
    index,
    text,
    verdict: null,
    citedIds: cited.get(index) ?? [],
    supportedBy: [],
    factual: false,
  }));
  const customerFacts = new Set(prepared.filter((it) => it.fromCustomer).flatMap((it) => [...it.facts]));
  for (const i of claimIndexes) {
    const s = sentences[i]!;
    s.factual = factual[i]!;
    const text = claimText(texts[i]!);
    const backers = prepared.filter((item) => supports(i, item));
    const mayUse = mayUseMail.get(i)!;
    // "As agreed on the phone, …": no passage records a promise made to this customer.
    const promised = citesPriorPromise(text);
    const backing = backers.filter((item) => (mayUse || !item.fromCustomer) && !promised).map((item) => item.sourceId);
    const fromCited = backing.filter((id) => s.citedIds.includes(id));
    if (s.citedIds.length === 0 || fromCited.length > 0) {
      s.verdict = backing.length > 0 ? GROUNDING_VERDICTS.supported : GROUNDING_VERDICTS.unsupported;
      s.supportedBy = (fromCited.length > 0 ? fromCited : backing).slice(0, MAX_SUPPORTING);
    } else {
      s.verdict = backing.length > 0 ? GROUNDING_VERDICTS.misTied : GROUNDING_VERDICTS.unsupported;
      s.supportedBy = backing.slice(0, MAX_SUPPORTING);
    }
    if (s.verdict === GROUNDING_VERDICTS.unsupported && !mayUse && isCommitment(text)) {
      // A quote of the mail did not settle the sentence: the meaning check tells whether the mail says it.
      const mail = prepared
        .filter((item) => item.fromCustomer && (quotedByItem(text, item) || supports(i, item)))
        .map((item) => item.sourceId);
      // Said by the mail, or built on its amounts and dates ("480" and "Friday" taken from it): the customer's word, not ours.
      const facts = [...keyFacts(text)];
      if (mail.length > 0 || (facts.length > 0 && facts.every((f) => customerFacts.has(f)))) {
        s.verdict = GROUNDING_VERDICTS.customerAsserted;
        s.supportedBy = mail.slice(0, MAX_SUPPORTING);
      }
    }
  }
  const count = (v: GroundingVerdict, isFactual = true) => sentences.filter((s) => s.verdict === v && s.factual === isFactual).length;
  const factualCount = claimIndexes.filter((i) => factual[i]).length;
  return {
    sentences,
    claims: factualCount,
    supported: count(GROUNDING_VERDICTS.supported),
    unsupported: count(GROUNDING_VERDICTS.unsupported),
    misTied: count(GROUNDING_VERDICTS.misTied),
    customerAsserted: sentences.filter((s) => s.verdict === GROUNDING_VERDICTS.customerAsserted).length,
    otherChecked: claimIndexes.length - factualCount,
    otherUnsupported: count(GROUNDING_VERDICTS.unsupported, false) + count(GROUNDING_VERDICTS.misTied, false),
    by: open.length === 0 ? 'quotes' : cos ? 'embedder' : 'words',
  };
}

/** True when a sentence keeps the draft from going out without a person. */
export const needsPerson = (verdict: GroundingVerdict | null): boolean =>
  verdict === GROUNDING_VERDICTS.unsupported || verdict === GROUNDING_VERDICTS.misTied || verdict === GROUNDING_VERDICTS.customerAsserted;
