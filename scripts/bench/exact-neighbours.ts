/**
 * A nearest-neighbour "index" that compares the probe with every vector (brute force, float32):
 * the exact answer the USearch index approximates. The growth bench runs retrieval with it beside
 * the real index, so a fall in recall can be told apart: the index's, or the ranking's and corpus's.
 */
import type { NearestNeighbours, NearestNeighboursLibrary } from '../../src/retrieval/nearest-neighbours.port';
import { cosine } from '../../src/retrieval/vectors';

function exact(dimensions: number): NearestNeighbours {
  const vectors = new Map<number, Float32Array>();
  return {
    dimensions,
    size: () => vectors.size,
    has: (id) => vectors.has(id),
    upsert(ids, vs) {
      ids.forEach((id, i) => vectors.set(id, Float32Array.from(vs[i]!)));
    },
    remove(ids) {
      for (const id of ids) vectors.delete(id);
    },
    search(vector, k) {
      const all = [...vectors].map(([id, v]) => ({ id, distance: 1 - cosine(vector, v) }));
      return all.sort((a, b) => a.distance - b.distance || a.id - b.id).slice(0, k);
    },
    save() {
      throw new Error('the exact index is not saved');
    },
  };
}

export const exactLibrary: NearestNeighboursLibrary = {
  kind: 'exact-bench',
  create: exact,
  load() {
    throw new Error('the exact index is not saved');
  },
};
