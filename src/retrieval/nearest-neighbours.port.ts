/**
 * An approximate-nearest-neighbour index over vectors keyed by a number (a knowledge passage's
 * id), kept in process and saved to a file. Cosine distance (1 − cosine similarity). The adapter
 * (nearest-neighbours.usearch.ts) is the only code that loads the native library.
 */
export interface NearestNeighbours {
  readonly dimensions: number;
  /** How many vectors the index holds. */
  size(): number;
  has(id: number): boolean;
  /** Adds (or replaces) one vector per id. */
  upsert(ids: readonly number[], vectors: readonly Float32Array[]): void;
  remove(ids: readonly number[]): void;
  /** The `k` nearest ids, nearest first. */
  search(vector: Float32Array, k: number): Array<{ id: number; distance: number }>;
  /** Writes the index to `file` (the caller renames it into place). */
  save(file: string): void;
}

export interface NearestNeighboursLibrary {
  /** The library and its settings, stored beside a saved index: another value means rebuild. */
  readonly kind: string;
  create(dimensions: number): NearestNeighbours;
  /** A saved index; throws when the file is missing or unreadable. */
  load(file: string): NearestNeighbours;
}
