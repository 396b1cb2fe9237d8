/**
 * What ranking needs of a candidate passage, its content words and its decoded vector, remembered
 * per worker. Every draft ranks a few hundred candidates, and many come back draft after draft
 * (our recent replies of the mailbox, a returning correspondent's or an organisation's mail, the
 * knowledge folder's nearest passages): reading each one's vector from MariaDB, splitting it into
 * words and decoding the vector again was most of the ranking's cost.
 *
 * An entry is used only while the row still holds the same text of the same vector model. The
 * vector is the model's of the text, so the same text and model mean the same vector; where the
 * row's vector bytes are at hand anyway (the knowledge folder's rows) they are compared too.
 */
import { terms } from './term-overlap';
import { decodeVector } from './vectors';

/**
 * Passages remembered per worker, least recently used out: our recent replies (a few hundred per
 * mailbox) stay while each draft's other candidates come and go. Each costs its words and one
 * vector (2 KB at 512 dimensions), about 5 KB in all: some 5 MB at most.
 */
export const REMEMBERED_CANDIDATES = 1_024;

export interface CandidateFeatures {
  terms: ReadonlySet<string>;
  vector: Float32Array | null;
}

interface Entry extends CandidateFeatures {
  text: string;
  model: string | null;
}

/** Whether `vector` holds exactly the stored `bytes` (float32, little-endian, as encoded). */
function sameBytes(vector: Float32Array | null, bytes: Uint8Array | null): boolean {
  if (vector === null || bytes === null) return vector === null && decodeVector(bytes) === null;
  if (vector.byteLength !== bytes.byteLength) return false;
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).equals(bytes);
}

export function candidateFeatureMemory(size = REMEMBERED_CANDIDATES) {
  const memory = new Map<string, Entry>();
  const keep = (key: string, entry: Entry) => {
    memory.delete(key);
    memory.set(key, entry);
    if (memory.size > size) memory.delete(memory.keys().next().value as string);
    return entry;
  };
  return {
    /**
     * The remembered features of the passage `key` if it still holds `text` with a vector of
     * `model` (null: none of the ranking's model); `bytes`, when given, must be its vector too.
     */
    known(key: string, text: string, model: string | null, bytes?: Uint8Array | null): CandidateFeatures | undefined {
      const kept = memory.get(key);
      if (!kept || kept.text !== text || kept.model !== model) return undefined;
      if (bytes !== undefined && !sameBytes(kept.vector, bytes)) return undefined;
      return keep(key, kept);
    },
    /** The features of the passage as read now (its vector bytes null: ranked by words only), remembered. */
    learn(key: string, text: string, model: string | null, bytes: Uint8Array | null): CandidateFeatures {
      const vector = model === null ? null : decodeVector(bytes);
      return keep(key, { text, model: vector ? model : null, terms: terms(text), vector });
    },
    size: () => memory.size,
  };
}

export type CandidateFeatureMemory = ReturnType<typeof candidateFeatureMemory>;
