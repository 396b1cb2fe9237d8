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
      const n = Math.min(k, Number(index.size()));
      if (n <= 0) return [];
      const found = index.search(vector, n, 1);
      return Array.from(found.keys, (key, i) => ({ id: Number(key), distance: found.distances[i]! }));
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
