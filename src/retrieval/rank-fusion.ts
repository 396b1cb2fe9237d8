/**
 * Reciprocal rank fusion (Cormack et al., 2009): each ranking gives an item 1 / (k + rank), and
 * the sums order the result. Ranks, not scores, are fused, so BM25 scores and cosine
 * similarities need no common scale; k = 60 damps the weight of the very first ranks, as in the
 * paper and in most search engines that offer hybrid search.
 */
export const RRF_K = 60;

export interface FusedItem<T> {
  item: T;
  /** The sum of 1 / (k + rank) over the rankings that hold the item. */
  fused: number;
  /** The item's 1-based rank in each ranking, undefined where that ranking does not hold it. */
  ranks: Array<number | undefined>;
}

/**
 * Fuses rankings (each best first) of items identified by `key`. Ties keep the order of first
 * appearance, ranking by ranking, so a single ranking comes back unchanged.
 */
export function fuseRankings<T>(rankings: ReadonlyArray<readonly T[]>, key: (item: T) => string, k = RRF_K): Array<FusedItem<T>> {
  const byKey = new Map<string, FusedItem<T> & { order: number }>();
  rankings.forEach((ranking, r) => {
    ranking.forEach((item, i) => {
      const id = key(item);
      let entry = byKey.get(id);
      if (!entry) {
        entry = { item, fused: 0, ranks: rankings.map(() => undefined), order: byKey.size };
        byKey.set(id, entry);
      }
      if (entry.ranks[r] !== undefined) return; // a ranking names an item once; later mentions are noise
      entry.ranks[r] = i + 1;
      entry.fused += 1 / (k + i + 1);
    });
  });
  return [...byKey.values()]
    .sort((a, b) => b.fused - a.fused || a.order - b.order)
    .map(({ item, fused, ranks }) => ({ item, fused, ranks }));
}
