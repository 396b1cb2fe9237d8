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
  if (LITTLE_ENDIAN) return new Float32Array(copy.buffer, 0, n);
  const view = new DataView(copy.buffer);
  return Float32Array.from({ length: n }, (_, i) => view.getFloat32(i * 4, true));
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
