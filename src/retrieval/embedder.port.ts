/**
 * Turns texts into vectors for similarity search. Vectors of different models live in different
 * spaces and must never be compared, which is why the model travels with the embedder.
 */
/**
 * What a text is for: a question that searches (`query`) or a passage that is searched
 * (`passage`). Retrieval models such as E5 embed the two differently; others ignore it.
 */
export type EmbeddingKind = 'query' | 'passage';

export interface Embedder {
  /** The embedding model's name, e.g. `text-embedding-3-small`. */
  readonly model: string;
  /**
   * One vector per text, in the order of `texts`; all of the same length. An empty list gives an
   * empty list without asking the service.
   */
  embed(texts: string[], kind: EmbeddingKind): Promise<number[][]>;
}
