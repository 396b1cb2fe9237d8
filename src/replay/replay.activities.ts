/**
 * The replay's activities: which pairs are left, one pair drafted and measured, a pair given up,
 * the run finished. A pair is drafted as the product would have drafted it on the day the mail
 * came (replay-context.ts, dated-knowledge.ts) with today's guidance, drafter and model, and
 * nothing is sent or stored as an email: the draft lives only in replay_results.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  DRAFT_FLAGS,
  knownCategory,
  nonAnswerReply,
  readCategoryList,
  type Category,
  type Drafter,
  type DraftExampleSettings,
} from '../drafting';
import { PermanentError } from '../platform/errors';
import { draftGuidance } from '../email';
import type { GuidanceSource } from '../guidance';
import type { Embedder, KnowledgeFile } from '../retrieval';
import { dateKnowledge, knowledgeAsOf } from './dated-knowledge';
import { asOfContext, type RankingSettings, type VectorCache } from './replay-context';
import { measurePair } from './replay-measures';
import { replayExamples, replayExamplesWanted } from './replay-examples';
import { REPLAY_RESULT_STATE, type ReplayOutcome } from './replay.contract';
import type { ReplayRunView, ReplayStore } from './replay-store.port';

export interface ReplayDeps {
  store: ReplayStore;
  drafter: Drafter;
  embedder?: Embedder | undefined;
  guidance?: GuidanceSource | undefined;
  /** The mailbox's language (its registry entry), used when a mail's own cannot be told; undefined for a mailbox this worker does not know. */
  mailboxLanguage(mailboxId: string): 'de' | 'en' | undefined;
  /** The knowledge folder's files as they are now (KNOWLEDGE_DIR); none without one. */
  knowledgeFiles(): KnowledgeFile[];
  ranking: RankingSettings;
  categories?: Category[] | undefined;
  /** DRAFT_EXAMPLES, DRAFT_EXAMPLE_CHARS: the run's earlier replies as examples (replay-examples.ts); absent: none. */
  examples?: DraftExampleSettings | undefined;
  /** Called every few seconds while a pair is drafted (a Temporal heartbeat in the worker). */
  heartbeat?: () => void;
}

export interface ReplayPairResult {
  /** True when the pair had a result already (a retry or a resumed run): nothing was drafted. */
  skipped: boolean;
  outcome: ReplayOutcome | null;
}

const HEARTBEAT_EVERY_MS = 5_000;

export function createReplayActivities(deps: ReplayDeps | undefined) {
  let shippedCategories: Category[] | undefined;
  // Knowledge passages recur in every pair: each is embedded once per worker (bounded by the folder's size).
  const vectors: VectorCache = new Map();
  const need = (): ReplayDeps => {
    if (!deps) throw new Error('this worker runs no replays (no replay dependencies wired)');
    return deps;
  };

  return {
    async replayPending(input: { runId: string; limit: number }): Promise<{ pairIds: string[] }> {
      return { pairIds: await need().store.pendingPairs(input.runId, input.limit) };
    },

    async replayPair(input: { runId: string; pairId: string }): Promise<ReplayPairResult> {
      const d = need();
      // A retry after a crash that came after the write, or a resumed run: the pair is done.
      if (await d.store.hasResult(input.runId, input.pairId)) return { skipped: true, outcome: null };
      const beat = setInterval(() => (d.heartbeat ?? activityHeartbeat)(), HEARTBEAT_EVERY_MS);
      beat.unref();
      try {
        return { skipped: false, outcome: await draftAndMeasure(d, input, vectors, (shippedCategories ??= readCategoryList())) };
      } catch (err) {
        // A failure that no retry changes (a model refusing the request): recorded as failed at once,
        // not asked twice more (a replay's activity has no queue interceptor to say so).
        if (err instanceof PermanentError) throw ApplicationFailure.nonRetryable(err.message, err.code);
        throw err;
      } finally {
        clearInterval(beat);
      }
    },

    /** A pair whose drafting failed after its retries: recorded as failed, so the run goes on and a resume does not retry it. */
    async replayPairFailed(input: { runId: string; pairId: string; error: string }): Promise<void> {
      const d = need();
      const pair = await d.store.loadPair(input.runId, input.pairId);
      await d.store.saveResult({
        runId: input.runId,
        pairId: input.pairId,
        correspondent: pair?.correspondent ?? '',
        state: REPLAY_RESULT_STATE.error,
        outcome: null,
        similarity: null,
        nonAnswerSimilarity: null,
        editShare: null,
        factsTotal: 0,
        factsFound: 0,
        category: '',
        language: '',
        knowledgeGap: false,
        draftBody: null,
        drafter: d.drafter.name,
        model: '',
        contextIds: [],
        error: input.error.slice(0, 2000),
      });
    },

    async finishReplay(input: { runId: string }): Promise<ReplayRunView | null> {
      const d = need();
      await d.store.finish(input.runId);
      return d.store.run(input.runId);
    },
  };
}

async function draftAndMeasure(
  d: ReplayDeps,
  input: { runId: string; pairId: string },
  vectors: VectorCache,
  shipped: Category[],
): Promise<ReplayOutcome> {
  const pair = await d.store.loadPair(input.runId, input.pairId);
  // Gone (the run was deleted) or never whole: no retry brings it back.
  if (!pair)
    throw ApplicationFailure.nonRetryable(`replay pair ${input.pairId} of run ${input.runId} is not stored (the run was deleted?)`);
  const at = pair.customer.sentAt;
  const knowledge = knowledgeAsOf(dateKnowledge(d.knowledgeFiles(), await d.store.knowledgeDates()), at);
  const mail = {
    key: pair.customer.key,
    threadKey: pair.customer.threadKey,
    subject: pair.customer.subject,
    text: pair.customer.body,
    receivedAt: at,
  };
  const context = await asOfContext({ mail, history: pair.history, knowledge }, d.ranking, d.embedder, vectors);
  const categories = d.categories ?? shipped;
  const email = { mailboxId: pair.mailboxId, subject: mail.subject, text: mail.text };
  const { categoryHint, guidance, category } = await draftGuidance(d, email, categories, { needCategory: replayExamplesWanted(d) });
  const examples = await replayExamples(d, { runId: input.runId, receivedAt: at }, category, categories);
  const language = d.mailboxLanguage(pair.mailboxId);
  const drafted = await d.drafter.draft({
    emailId: `replay:${input.runId}:${input.pairId}`,
    from: { name: pair.customer.fromName, address: pair.correspondent },
    subject: mail.subject,
    text: mail.text,
    context,
    ...(language ? { language } : {}),
    categories,
    ...(categoryHint ? { categoryHint } : {}),
    ...(guidance ? { guidance } : {}),
    ...(examples.length > 0 ? { examples } : {}),
  });
  const noContext = drafted.flags.includes(DRAFT_FLAGS.noRelevantContext);
  const answerable = !noContext && drafted.body.trim() !== '';
  // The floor speaks the mailbox's language, as its team replies do; a mailbox this worker does not know: the draft's.
  const nonAnswer = nonAnswerReply(language ?? (drafted.language === 'de' ? 'de' : 'en'));
  const measured = { draft: drafted.body, sent: pair.reply.body, answerable, nonAnswer };
  // The embedder down costs the similarity only (null); the other measures need no service.
  const measures = await measurePair(measured, d.embedder).catch(() => measurePair(measured, undefined));
  await d.store.saveResult({
    runId: input.runId,
    pairId: input.pairId,
    correspondent: pair.correspondent,
    state: REPLAY_RESULT_STATE.measured,
    outcome: measures.outcome,
    similarity: measures.similarity,
    nonAnswerSimilarity: measures.nonAnswerSimilarity,
    editShare: measures.editShare,
    factsTotal: measures.factsTotal,
    factsFound: measures.factsFound,
    category: knownCategory(categories, drafted.category),
    language: drafted.language,
    knowledgeGap: noContext || !context.some((c) => c.kind === 'knowledge'),
    draftBody: drafted.body,
    drafter: d.drafter.name,
    model: drafted.model,
    contextIds: [...new Set(context.map((c) => c.sourceId))],
    error: null,
  });
  return measures.outcome;
}

/** Inside a worker: a heartbeat, so a pair lost with its worker is retried within the heartbeat timeout. */
function activityHeartbeat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // Not in an activity.
  }
}

export type ReplayActivities = ReturnType<typeof createReplayActivities>;
