/**
 * One evaluation: the labelled knowledge indexed into a throwaway MariaDB database through the
 * product's knowledge sync, every question retrieved with one method, and the offline drafter fed
 * what came back. Shared by `npm run eval` and the retrieval floor test.
 */
import { createOfflineDrafter } from '../../src/drafting/drafter.offline';
import { DRAFT_FLAGS } from '../../src/drafting/drafting.contract';
import { createMariaDbKnowledgeLedger } from '../../src/retrieval/knowledge-ledger.mariadb';
import { syncKnowledge } from '../../src/retrieval/knowledge-sync';
import type { IndexableEmail } from '../../src/retrieval/vector-index.port';
import { createTestDatabase } from '../../test/support/database';
import type { EvalQuestion, LabelledSet } from './labelled-set';
import { languagePair, methodFigures, rankedFiles, type MethodFigures, type QuestionOutcome } from './metrics';
import { createEvalIndex, type RetrievalMethod } from './retrieval-methods';
import type { EmbeddingClock, TimedEmbedder } from './eval-embedder';
import type { Embedder } from '../../src/retrieval/embedder.port';
import { rememberVectors } from '../../src/retrieval/vector-memory';
import { groundOfflineDraft, groundingFigures, type GroundingFigures, type GroundingOutcome } from './grounding-eval';
import type { DraftContextItem, DraftResult } from '../../src/drafting/drafter.port';

/** Items asked of retrieval per question, as the draft activity asks. */
const RETRIEVE_LIMIT = 8;

/** The embedder, counting the texts it is asked for. */
function countingTexts(embedder: Embedder, count: { texts: number }): Embedder {
  return {
    model: embedder.model,
    embed(texts, kind) {
      count.texts += texts.length;
      return embedder.embed(texts, kind);
    },
  };
}

export interface EvalRun {
  method: RetrievalMethod;
  /** The embedding model, null for words only. */
  embedder: string | null;
  figures: MethodFigures;
  outcomes: QuestionOutcome[];
  /** Embedding cost in this run: milliseconds per knowledge passage and per question. */
  embedding: { passages: number; msPerPassage: number; questions: number; msPerQuestion: number } | null;
  /** Claim-level grounding of the offline drafts, and the planted faults it caught (grounding-eval.ts). */
  grounding: GroundingFigures & {
    /** Texts the checks (each draft's own and its two planted faults) handed to the vector memory, and those it sent on. */
    embedding: { asked: number; sent: number };
  };
}

export function questionEmail(q: EvalQuestion): IndexableEmail {
  return {
    emailId: `eval-${q.id}`,
    threadId: `eval-${q.id}`,
    account: '',
    mailbox: 'eval',
    direction: 'in',
    fromAddress: `customer-${q.id}@example.org`,
    subject: q.subject,
    text: q.body,
    date: new Date(Date.UTC(2026, 0, 1)),
  };
}

const snapshot = (c: EmbeddingClock): EmbeddingClock => ({ texts: { ...c.texts }, ms: { ...c.ms } });

/** The similarity floors of retrieval and of the offline drafter; unset, the product's defaults. */
export interface EvalSettings {
  minCosine?: number;
  minAnswerCosine?: number;
}

export async function evaluate(
  set: LabelledSet,
  method: RetrievalMethod,
  embedder?: TimedEmbedder,
  settings: EvalSettings = {},
): Promise<EvalRun> {
  const db = await createTestDatabase('eval');
  try {
    const index = createEvalIndex(db.pool, method, embedder, settings.minCosine);
    const before = embedder ? snapshot(embedder.clock) : null;
    await syncKnowledge({ files: set.knowledge, ledger: createMariaDbKnowledgeLedger(db.pool), index });
    const indexed = embedder ? snapshot(embedder.clock) : null;
    const drafter = createOfflineDrafter(settings.minAnswerCosine === undefined ? {} : { minAnswerCosine: settings.minAnswerCosine });
    const outcomes: QuestionOutcome[] = [];
    const drafted: Array<{ q: EvalQuestion; items: DraftContextItem[]; draft: DraftResult }> = [];
    for (const q of set.questions) {
      const email = questionEmail(q);
      const items = await index.retrieve(email, RETRIEVE_LIMIT);
      const draft = await drafter.draft({
        emailId: email.emailId,
        from: { name: '', address: email.fromAddress },
        subject: q.subject,
        text: q.body,
        context: items,
      });
      outcomes.push({
        id: q.id,
        pair: languagePair(q.lang, q.expected === null ? null : (set.languages.get(q.expected) ?? null)),
        expected: q.expected,
        ranked: rankedFiles(items),
        draftSources: draft.usedSourceIds,
        draftNotFound: draft.flags.includes(DRAFT_FLAGS.noRelevantContext),
      });
      drafted.push({ q, items, draft });
    }
    let embedding: EvalRun['embedding'] = null;
    if (embedder && before && indexed) {
      const passages = indexed.texts.passage - before.texts.passage;
      const questions = embedder.clock.texts.query - indexed.texts.query;
      embedding = {
        passages,
        msPerPassage: passages ? (indexed.ms.passage - before.ms.passage) / passages : 0,
        questions,
        msPerQuestion: questions ? (embedder.clock.ms.query - indexed.ms.query) / questions : 0,
      };
    }
    // After the embedding figures: the check's own embedding calls are not retrieval's cost. The
    // check asks through a vector memory as in the worker (src/retrieval/configured-index.ts).
    const grounded: GroundingOutcome[] = [];
    const asked = { texts: 0 };
    const checking = embedder && countingTexts(rememberVectors(embedder, { kindsAlike: false }), asked);
    const sentBefore = embedder ? embedder.clock.texts.query + embedder.clock.texts.passage : 0;
    for (const { q, items, draft } of drafted)
      grounded.push(
        await groundOfflineDraft(draft, items, { emailId: questionEmail(q).emailId, subject: q.subject, body: q.body }, checking),
      );
    const sent = embedder ? embedder.clock.texts.query + embedder.clock.texts.passage - sentBefore : 0;
    return {
      method,
      embedder: embedder?.model ?? null,
      figures: methodFigures(outcomes),
      outcomes,
      embedding,
      grounding: { ...groundingFigures(grounded), embedding: { asked: asked.texts, sent } },
    };
  } finally {
    await db.drop();
  }
}
