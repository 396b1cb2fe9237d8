import type { Embedder, EmbeddingKind } from './embedder.port';

/**
 * Vectors kept per worker: 4,096 at 512 dimensions in float32 are 8 MB. Sized for the texts asked
 * again and again — the sentences of the knowledge passages every draft's grounding check compares
 * against (a knowledge folder of a few hundred passages has one to three thousand) — beside the
 * texts of the emails in flight.
 */
export const REMEMBERED_VECTORS = 4_096;

/**
 * Remembers the last vectors by their exact text, so that a text embedded twice is asked once.
 * The common cases: a new email's first passage is embedded by its index step and the draft step
 * searches with the same text (`vectorProbe`) a moment later; the grounding check embeds the
 * sentences of the same knowledge passages for draft after draft. Kept as float32, as MariaDB keeps
 * passage vectors: the same model gives the same text the same vector, to float32's precision
 * (cosines move by less than 1e-6). Least recently used first out. `kindsAlike`: the embedder sends
 * queries and passages alike (no E5 prefixes); otherwise the kind is part of the key.
 */
export function rememberVectors(embedder: Embedder, options: { kindsAlike: boolean; size?: number }): Embedder {
  const size = options.size ?? REMEMBERED_VECTORS;
  const memory = new Map<string, Float32Array>();
  const keyOf = (text: string, kind: EmbeddingKind) => (options.kindsAlike ? text : `${kind}\u0000${text}`);
  const keep = (key: string, v: Float32Array) => {
    memory.delete(key);
    memory.set(key, v);
    if (memory.size > size) memory.delete(memory.keys().next().value as string);
  };

  return {
    model: embedder.model,
    async embed(texts: string[], kind: EmbeddingKind): Promise<number[][]> {
      const known = texts.map((t) => {
        const key = keyOf(t, kind);
        const v = memory.get(key);
        if (v) keep(key, v);
        return v;
      });
      const missing = [...new Set(texts.filter((_, i) => known[i] === undefined))];
      const fresh = missing.length > 0 ? await embedder.embed(missing, kind) : [];
      const byText = new Map(missing.map((t, i) => [t, fresh[i]!]));
      for (const [t, v] of byText) keep(keyOf(t, kind), Float32Array.from(v));
      return texts.map((t, i) => {
        const v = known[i];
        return v ? Array.from(v) : (byText.get(t) as number[]);
      });
    },
  };
}
