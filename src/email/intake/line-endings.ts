/**
 * Line endings of a raw message as RFC 5322 wants them: CRLF. Files from old Macs end lines in a
 * bare CR, Unix mbox exports in a bare LF, and a message that mixes them is not rare. mailparser
 * copes with bare LF but reads a bare-CR message as one endless header line. Hand-written because
 * it is one pass over bytes; the libraries at hand convert strings and would lose 8-bit bytes.
 */

const CR = 0x0d;
const LF = 0x0a;

/** Whether any line ends in something other than CRLF. */
export function hasBareLineEnds(raw: Buffer): boolean {
  for (let i = 0; i < raw.length; i += 1) {
    const b = raw[i];
    if (b === CR && raw[i + 1] !== LF) return true;
    if (b === LF && (i === 0 || raw[i - 1] !== CR)) return true;
  }
  return false;
}

/** The same bytes with every bare CR, bare LF and CRLF as CRLF; the buffer itself when nothing changes. */
export function toCrlf(raw: Buffer): Buffer {
  if (!hasBareLineEnds(raw)) return raw;
  const out = Buffer.allocUnsafe(raw.length * 2);
  let n = 0;
  for (let i = 0; i < raw.length; i += 1) {
    const b = raw[i]!;
    if (b === CR) {
      if (raw[i + 1] === LF) i += 1;
      out[n++] = CR;
      out[n++] = LF;
    } else if (b === LF) {
      out[n++] = CR;
      out[n++] = LF;
    } else {
      out[n++] = b;
    }
  }
  return out.subarray(0, n);
}
