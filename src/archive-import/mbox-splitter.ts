/**
 * Splits an mbox file into its messages as the bytes arrive, chunk by chunk, holding at most one
 * message (and never more than `maxBytes` of it) in memory.
 *
 * Hand-written rather than mbox-reader 1.2.0 (which the project looked at first) because that
 * reader buffers every line of a message without a limit (one 2 GB attachment sits in memory),
 * does not know Content-Length (its README: mboxcl2 is not supported), starts a new message at
 * any line beginning with `From ` even without the empty line before it, rewrites CRLF to LF (the
 * stored bytes, and so the id of a mail without Message-ID, would differ from the original) and
 * drops text before the first `From ` line without a word.
 *
 * The rules:
 * - A message starts at a `From ` line at the start of the file or after an empty line; the empty
 *   line before it is the separator the writer added, not part of the message.
 * - `>From ` quoting: one `>` is removed from every line matching `^>+From ` (the mboxrd rule).
 *   mboxo and mboxrd files look the same, so an mboxo line that really read `>From ` loses one
 *   `>` (a quoting mark, never a word); every escaped `From ` line comes back right.
 * - Content-Length (mboxcl, mboxcl2): trusted only when the counted body ends exactly at a
 *   `From ` line (optionally after one empty line) or at the end of the file; such a body is kept
 *   byte for byte (no unquoting, no splitting on `From ` lines inside it). Otherwise the header is
 *   ignored and the `From ` rule above applies. Counted bodies above `maxBytes` are not held back
 *   for checking; for them the `From ` rule applies.
 * - Line ends are kept as they are (LF or CRLF).
 * - A last message without its final line break is reported `truncated`.
 */

export type MboxItem =
  | { kind: 'message'; index: number; offset: number; raw: Buffer; truncated: boolean }
  | { kind: 'too-large'; index: number; offset: number; head: Buffer; size: number };

/** The first line of the data is not a `From ` line: this is not an mbox file. */
export class NotMboxError extends Error {}

/** How much of an oversized message is kept to name it (its header block, usually). */
export const OVERSIZED_HEAD_BYTES = 64 * 1024;
/** A line longer than this is handled in pieces (a file with no line breaks must not pile up). */
const PIECE_BYTES = 64 * 1024;
const FROM = Buffer.from('From ');

interface Line {
  data: Buffer;
  /** The piece starts a line (false for the later pieces of a very long line). */
  start: boolean;
  offset: number;
}

interface Message {
  index: number;
  offset: number;
  parts: Buffer[];
  size: number;
  head: Buffer | null;
  inHeader: boolean;
  contentLength: number | null;
}

const isBlank = (l: Line) =>
  l.start && (l.data.length === 1 ? l.data[0] === 0x0a : l.data.length === 2 && l.data[0] === 0x0d && l.data[1] === 0x0a);
const isFromLine = (l: Line) => l.start && l.data.length > 5 && l.data.subarray(0, 5).equals(FROM) && l.data[5] !== 0x20;
const isQuotedFrom = (l: Line) => l.start && l.data[0] === 0x3e && /^>+From /.test(l.data.subarray(0, 80).toString('latin1'));

export class MboxSplitter {
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private carryStart = true;
  private position = 0;
  private started = false;
  private msg: Message | null = null;
  private pendingBlank: Line | null = null;
  private count = 0;
  private out: MboxItem[] = [];
  /** Content-Length mode: the counted body held back until its end is checked. */
  private counted: { remaining: number; lines: Line[]; blank: Line | null } | null = null;
  private verifying = false;

  constructor(private readonly maxBytes: number) {}

  /** Bytes consumed so far (for progress). */
  get bytesRead(): number {
    return this.position + this.carryBytes;
  }

  push(chunk: Buffer): MboxItem[] {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, from);
      if (nl < 0) break;
      this.takeLine(chunk.subarray(from, nl + 1));
      from = nl + 1;
    }
    if (from < chunk.length) {
      this.carry.push(chunk.subarray(from));
      this.carryBytes += chunk.length - from;
      // A very long line goes on in pieces; only its first piece can be a From or empty line.
      while (this.carryBytes >= PIECE_BYTES) {
        const all = Buffer.concat(this.carry);
        this.emitLine(all.subarray(0, PIECE_BYTES), this.carryStart);
        this.carryStart = false;
        const rest = all.subarray(PIECE_BYTES);
        this.carry = rest.length ? [Buffer.from(rest)] : [];
        this.carryBytes = rest.length;
      }
    }
    return this.drain();
  }

  end(): MboxItem[] {
    let truncated = false;
    if (this.carryBytes > 0) {
      truncated = true;
      this.takeLine(Buffer.alloc(0));
    } else if (!this.carryStart) truncated = true;
    // The file ended inside or right after a counted body (replaying may open another one).
    while (this.counted) {
      const c = this.counted;
      this.counted = null;
      if (this.verifying) {
        this.verifying = false;
        this.appendLines(c.lines);
      } else {
        truncated = true;
        for (const l of [...c.lines, ...(c.blank ? [c.blank] : [])]) {
          if (this.counted) this.countedMode(l);
          else this.lineMode(l);
        }
      }
    }
    this.finishMessage(truncated);
    return this.drain();
  }

  private drain(): MboxItem[] {
    const items = this.out;
    this.out = [];
    return items;
  }

  private takeLine(tail: Buffer): void {
    const data = this.carryBytes ? Buffer.concat([...this.carry, tail]) : tail;
    this.carry = [];
    this.carryBytes = 0;
    if (data.length) this.emitLine(data, this.carryStart);
    this.carryStart = true;
  }

  private emitLine(data: Buffer, start: boolean): void {
    const line = { data, start, offset: this.position };
    this.position += data.length;
    if (!this.started) {
      if (!isFromLine(line)) throw new NotMboxError('the data does not start with a "From " line');
      this.started = true;
      this.startMessage(line);
      return;
    }
    if (this.counted) this.countedMode(line);
    else this.lineMode(line);
  }

  private lineMode(line: Line): void {
    const msg = this.msg!;
    if (isBlank(line)) {
      if (msg.inHeader) {
        msg.inHeader = false;
        const cl = msg.contentLength;
        if (cl !== null && cl <= this.maxBytes) {
          this.append(line);
          this.counted = { remaining: cl, lines: [], blank: null };
          this.verifying = cl === 0;
          return;
        }
        // Otherwise the end of the header may also be the separator before the next From line.
      }
      if (this.pendingBlank) this.append(this.pendingBlank);
      this.pendingBlank = line;
      return;
    }
    if (isFromLine(line) && this.pendingBlank) {
      this.pendingBlank = null;
      this.finishMessage(false);
      this.startMessage(line);
      return;
    }
    if (this.pendingBlank) {
      this.append(this.pendingBlank);
      this.pendingBlank = null;
    }
    if (msg.inHeader && line.start) {
      const m = /^content-length:[ \t]*(\d{1,12})[ \t]*\r?\n$/i.exec(line.data.subarray(0, 200).toString('latin1'));
      if (m) msg.contentLength = Number(m[1]);
    }
    this.append(isQuotedFrom(line) ? line.data.subarray(1) : line.data);
  }

  private countedMode(line: Line): void {
    const c = this.counted!;
    if (!this.verifying) {
      if (line.data.length <= c.remaining) {
        c.remaining -= line.data.length;
        c.lines.push(line);
        this.verifying = c.remaining === 0;
        return;
      }
      return this.distrust(line);
    }
    // The count is used up: only a From line (after at most one empty line) or the end may follow.
    if (isFromLine(line)) {
      this.counted = null;
      this.verifying = false;
      this.appendLines(c.lines);
      this.finishMessage(false);
      this.startMessage(line);
      return;
    }
    if (isBlank(line) && !c.blank) {
      c.blank = line;
      return;
    }
    this.distrust(line);
  }

  /** The Content-Length did not land on a message boundary: read the held lines by the From rule. */
  private distrust(line: Line): void {
    const c = this.counted!;
    this.counted = null;
    this.verifying = false;
    for (const l of [...c.lines, ...(c.blank ? [c.blank] : []), line]) {
      if (this.counted) this.countedMode(l);
      else this.lineMode(l);
    }
  }

  /** A trusted counted body: byte for byte. */
  private appendLines(lines: Line[]): void {
    for (const l of lines) this.append(l.data);
  }

  private startMessage(fromLine: Line): void {
    this.count += 1;
    this.msg = { index: this.count, offset: fromLine.offset, parts: [], size: 0, head: null, inHeader: true, contentLength: null };
    this.pendingBlank = null;
  }

  private append(data: Buffer | Line): void {
    const bytes = Buffer.isBuffer(data) ? data : data.data;
    const msg = this.msg!;
    msg.size += bytes.length;
    if (msg.head !== null) return;
    if (msg.size <= this.maxBytes) {
      msg.parts.push(bytes);
      return;
    }
    // Too large: keep only its head to name it and count the rest.
    msg.head = Buffer.from(Buffer.concat([...msg.parts, bytes]).subarray(0, OVERSIZED_HEAD_BYTES));
    msg.parts = [];
  }

  private finishMessage(truncated: boolean): void {
    const msg = this.msg;
    if (!msg) return;
    this.msg = null;
    // The empty line before the next From line (or at the end of the file) is the separator.
    this.pendingBlank = null;
    if (msg.head !== null) this.out.push({ kind: 'too-large', index: msg.index, offset: msg.offset, head: msg.head, size: msg.size });
    else this.out.push({ kind: 'message', index: msg.index, offset: msg.offset, raw: Buffer.concat(msg.parts), truncated });
  }
}
