/**
 * Vectors as MariaDB stores them beside the passages (BLOB, float32 little-endian), and the
 * cosine similarity retrieval ranks them by, in process over the candidates a scope allows.
 */

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A vector as the `embedding` column holds it: float32, little-endian, 4 bytes per dimension. */
export function encodeVector(vector: readonly number[]): Buffer {
  const out = Buffer.allocUnsafe(vector.length * 4);
  vector.forEach((x, i) => out.writeFloatLE(x, i * 4));
  return out;
}

/** The stored bytes as a vector; null for a missing or malformed value (ranked by words only). */
export function decodeVector(bytes: Uint8Array | null | undefined): Float32Array | null {
  if (!bytes || bytes.byteLength === 0 || bytes.byteLength % 4 !== 0) return null;
  const n = bytes.byteLength / 4;
  // A copy: the driver's buffers are slices at any offset, and Float32Array needs 4-byte alignment.
  const copy = new Uint8Array(bytes);
  const view = new DataView(copy.buffer);
  const vector = LITTLE_ENDIAN
    ? new Float32Array(copy.buffer, 0, n)
    : Float32Array.from({ length: n }, (_, i) => view.getFloat32(i * 4, true));
  SQUARED_NORMS.set(vector, squaredNorm(vector));
  return vector;
}

/**
 * The squared norm of every vector decodeVector made (nobody changes one in place): a candidate
 * compared draft after draft has it summed once, not on every comparison.
 */
const SQUARED_NORMS = new WeakMap<Float32Array, number>();

/** Σ x², summed in index order as cosine sums it, so a kept norm gives the same result to the bit. */
function squaredNorm(v: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    n += x * x;
  }
  return n;
}

/**
 * `cosine(a, ·)` for one vector against many: a's norm summed once, each decoded vector's kept
 * norm used. The same value as `cosine(a, b)` to the bit (each sum runs in the same order).
 */
export function cosineTo(a: ArrayLike<number>): (b: ArrayLike<number>) => number {
  const na = squaredNorm(a);
  return (b) => {
    if (a.length !== b.length || a.length === 0) return 0;
    let dot = 0;
    for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
    const nb = (b instanceof Float32Array ? SQUARED_NORMS.get(b) : undefined) ?? squaredNorm(b);
    return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
  };
}

/** Cosine similarity; 0 when the lengths differ (vectors of another model) or a vector is zero. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
