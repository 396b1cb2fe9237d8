import type { Embedder, EmbeddingKind } from './embedder.port';

/** Vectors kept per worker: the texts of the emails in flight, about 1 MB at 512 dimensions. */
export const REMEMBERED_VECTORS = 512;

/**
 * Remembers the last vectors by their exact text, so that a text embedded twice in a short time is
 * asked once. The common case: a new email's first passage is embedded by its index step, and the
 * draft step searches with the same text (`vectorProbe`) a moment later. Exact by construction —
 * the same model gives the same text the same vector. `kindsAlike`: the embedder sends queries and
 * passages alike (no E5 prefixes); otherwise the kind is part of the key and the two never meet.
 */
export function rememberVectors(embedder: Embedder, options: { kindsAlike: boolean; size?: number }): Embedder {
  const size = options.size ?? REMEMBERED_VECTORS;
  const memory = new Map<string, number[]>();
  const keyOf = (text: string, kind: EmbeddingKind) => (options.kindsAlike ? text : `${kind}\u0000${text}`);

  return {
    model: embedder.model,
    async embed(texts: string[], kind: EmbeddingKind): Promise<number[][]> {
      const known = texts.map((t) => memory.get(keyOf(t, kind)));
      const missing = [...new Set(texts.filter((_, i) => known[i] === undefined))];
      const fresh = missing.length > 0 ? await embedder.embed(missing, kind) : [];
      const byText = new Map(missing.map((t, i) => [t, fresh[i]!]));
      for (const [t, v] of byText) {
        const key = keyOf(t, kind);
        memory.delete(key);
        memory.set(key, v);
        if (memory.size > size) memory.delete(memory.keys().next().value as string);
      }
      return texts.map((t, i) => known[i] ?? (byText.get(t) as number[]));
    },
  };
}
