import { closeSync, createReadStream, openSync, readFileSync, readSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { MboxSplitter, OVERSIZED_HEAD_BYTES } from './mbox-splitter';
import { errorMessage } from '../platform/errors';
import { CliError } from '../platform/cli-context';

/**
 * What `email-rag ingest` reads: .eml files, mbox files (found by content: the first line starts
 * with `From `), Maildir folders (`cur/` and `new/`, Maildir++ subfolders `.Sub/` included) and any
 * mix of them in a directory tree (a Thunderbird profile's `Mail/` folder, a Dovecot home).
 */
export type ArchiveSource = { kind: 'eml' | 'maildir' | 'mbox'; file: string; size: number };

export interface ArchivePlan {
  sources: ArchiveSource[];
  totalBytes: number;
  /** Files left aside because they are neither mail nor mbox (indexes such as .msf, dovecot.index). */
  ignored: number;
}

export type ArchiveItem =
  | { kind: 'message'; origin: string; raw: Buffer; truncated: boolean; inMbox: boolean }
  | { kind: 'too-large'; origin: string; head: Buffer; size: number }
  | { kind: 'unreadable'; origin: string; error: string };

const MAX_DEPTH = 32;
const READ_CHUNK = 256 * 1024;

function readHead(file: string, bytes: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    return buf.subarray(0, readSync(fd, buf, 0, bytes, 0));
  } finally {
    closeSync(fd);
  }
}

const startsWithFrom = (head: Buffer) => head.subarray(0, 5).toString('latin1') === 'From ' && head.length > 5 && head[5] !== 0x20;
/** The first line is a header field (`Name: value`): a single message. */
const looksLikeHeader = (head: Buffer) => /^[!-9;-~]+:/.test(head.subarray(0, 1000).toString('latin1'));

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function sniff(file: string): 'mbox' | 'eml' | 'other' {
  try {
    const head = readHead(file, 1000);
    if (startsWithFrom(head)) return 'mbox';
    return looksLikeHeader(head) ? 'eml' : 'other';
  } catch {
    return 'other';
  }
}

function walk(dir: string, depth: number, plan: ArchivePlan): void {
  if (depth > MAX_DEPTH) return;
  const names = readdirSync(dir).sort();
  // Maildir's two message folders (tmp/ holds deliveries in progress: not messages yet).
  const mailFolders = names.filter((n) => /^(?:cur|new)$/.test(n) && isDir(path.join(dir, n)));
  const maildir = mailFolders.length === 2;
  if (maildir) {
    for (const sub of mailFolders) {
      for (const name of readdirSync(path.join(dir, sub)).sort()) {
        if (!name.startsWith('.')) add(plan, 'maildir', path.join(dir, sub, name));
      }
    }
  }
  for (const name of names) {
    const p = path.join(dir, name);
    if (maildir && /^(?:cur|new|tmp)$/.test(name)) continue;
    // Kept as an .eml source even when unreadable: it gets its own failure line.
    if (name.toLowerCase().endsWith('.eml')) add(plan, 'eml', p);
    else if (isDir(p)) walk(p, depth + 1, plan);
    else if (!maildir && sniff(p) === 'mbox') add(plan, 'mbox', p);
    else plan.ignored++;
  }
}

function add(plan: ArchivePlan, kind: ArchiveSource['kind'], file: string): void {
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    // Reported when it is read.
  }
  plan.sources.push({ kind, file, size });
  plan.totalBytes += size;
}

/** Finds what to import under `target`; a single file that is not mail is refused with the reason. */
export function planArchive(target: string): ArchivePlan {
  let st;
  try {
    st = statSync(target);
  } catch {
    throw new CliError(`no such file or directory: ${target}`, 2);
  }
  const plan: ArchivePlan = { sources: [], totalBytes: 0, ignored: 0 };
  if (st.isFile()) {
    const kind = target.toLowerCase().endsWith('.eml') ? 'eml' : st.size === 0 ? 'mbox' : sniff(target);
    if (kind === 'other') {
      throw new CliError(
        `${target}: neither an mbox file (its first line does not start with "From ") nor an email (its first line is not a header)`,
        2,
      );
    }
    add(plan, kind, target);
    return plan;
  }
  walk(target, 0, plan);
  if (plan.sources.length === 0) throw new CliError(`no mail in ${target} (no .eml files, mbox files or Maildir folders)`, 2);
  return plan;
}

function readMessageFile(source: ArchiveSource, maxBytes: number): ArchiveItem {
  try {
    const size = statSync(source.file).size;
    if (size > maxBytes) return { kind: 'too-large', origin: source.file, head: readHead(source.file, OVERSIZED_HEAD_BYTES), size };
    return { kind: 'message', origin: source.file, raw: readFileSync(source.file), truncated: false, inMbox: false };
  } catch (err) {
    return { kind: 'unreadable', origin: source.file, error: errorMessage(err) };
  }
}

async function* readMbox(
  source: ArchiveSource,
  maxBytes: number,
  onRead: (bytes: number, files: number) => void,
): AsyncGenerator<ArchiveItem> {
  const splitter = new MboxSplitter(maxBytes);
  const origin = (index: number) => `${source.file}#${index}`;
  const items = (list: ReturnType<MboxSplitter['push']>): ArchiveItem[] =>
    list.map((i) =>
      i.kind === 'message'
        ? { kind: 'message', origin: origin(i.index), raw: i.raw, truncated: i.truncated, inMbox: true }
        : { kind: 'too-large', origin: origin(i.index), head: i.head, size: i.size },
    );
  try {
    // Read in chunks: the file is never in memory, one message (at most MAX_MESSAGE_BYTES) is.
    for await (const chunk of createReadStream(source.file, { highWaterMark: READ_CHUNK })) {
      const buf = chunk as Buffer;
      onRead(buf.length, 0);
      yield* items(splitter.push(buf));
    }
    yield* items(splitter.end());
    onRead(0, 1);
  } catch (err) {
    yield { kind: 'unreadable', origin: `${source.file} at byte ${splitter.bytesRead}`, error: errorMessage(err) };
  }
}

/** The messages of the plan, one at a time, in order; `onRead` is told how much was read. */
export async function* readArchive(
  plan: ArchivePlan,
  maxBytes: number,
  onRead: (bytes: number, files: number) => void,
): AsyncGenerator<ArchiveItem> {
  for (const source of plan.sources) {
    if (source.kind === 'mbox') yield* readMbox(source, maxBytes, onRead);
    else {
      const item = readMessageFile(source, maxBytes);
      onRead(source.size, 1);
      yield item;
    }
  }
}
