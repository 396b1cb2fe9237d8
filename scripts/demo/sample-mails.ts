import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { projectRoot } from '../../test/support/services/tool-paths';

export const SAMPLE_DIR = path.join(projectRoot, 'scripts', 'demo-mails');
/** Mail that is in the mailbox before it is connected: history, never answered. */
export const EXISTING_DIR = path.join(SAMPLE_DIR, 'existing');
/** The sample the demo approves and sends. */
export const APPROVE_FILE = '01-rechnung-doppelt-abgebucht.eml';

export interface SampleMail {
  file: string;
  /** Ready to deliver: CRLF line ends, Date set to the delivery time. */
  raw: string;
  messageId: string;
  from: string;
  subject: string;
}

/** The .eml files of `dir` (not its subfolders), sorted by name. */
export async function loadSampleMails(dir: string, ageMs = 0): Promise<SampleMail[]> {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort();
  if (files.length === 0) throw new Error(`no .eml files in ${dir}`);
  const mails: SampleMail[] = [];
  for (const [i, file] of files.entries()) {
    // A minute apart, in file order, so the mailbox reads like a real morning's inbox.
    const date = new Date(Date.now() - ageMs - (files.length - i) * 60_000);
    const raw = withDate(fs.readFileSync(path.join(dir, file), 'utf8'), date).replace(/\r?\n/g, '\r\n');
    const parsed = await simpleParser(raw);
    if (!parsed.messageId) throw new Error(`${file} has no Message-ID header`);
    const sender = parsed.from?.value[0];
    const from = sender ? (sender.name ? `${sender.name} <${sender.address ?? ''}>` : (sender.address ?? '?')) : '?';
    mails.push({ file, raw, messageId: parsed.messageId, from, subject: parsed.subject ?? '' });
  }
  return mails;
}

/** Replaces the Date header (header block only): sample files keep a fixed date, the demo shows today's mail. */
function withDate(raw: string, date: Date): string {
  const end = raw.search(/\r?\n\r?\n/);
  const head = end < 0 ? raw : raw.slice(0, end);
  const rest = end < 0 ? '' : raw.slice(end);
  const dated = /^Date:.*$/im.test(head)
    ? head.replace(/^Date:.*$/im, `Date: ${rfc5322Date(date)}`)
    : `${head}\nDate: ${rfc5322Date(date)}`;
  return dated + rest;
}

function rfc5322Date(d: Date): string {
  // toUTCString() gives "Mon, 04 Nov 2024 09:12:44 GMT"; a numeric zone is the modern form.
  return d.toUTCString().replace(/GMT$/, '+0000');
}

/** Message-IDs compare without their angle brackets: parsers differ in keeping them. */
export function sameMessageId(a: string | null | undefined, b: string): boolean {
  const bare = (s: string) => s.trim().replace(/^<|>$/g, '');
  return a !== null && a !== undefined && bare(a) === bare(b);
}
