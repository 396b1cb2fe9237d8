import { DateTime } from 'luxon';
import { LineCounter, parseDocument, isMap, isScalar, isSeq, type Node, type YAMLMap } from 'yaml';
import { ConfigError } from '../platform/errors';
import { anyValue, fields, formatPath, unknownFieldProblems } from '../platform/config-schema';

/** One closed date of a business calendar (in the calendar's own zone). */
export interface Holiday {
  date: string;
  name: string;
}

/** A holidays file larger than this is not a list of holidays; it is refused unread. */
export const HOLIDAYS_MAX_BYTES = 256 * 1024;
/** Problems shown at most; a file that is something else entirely would otherwise fill the log. */
const MAX_PROBLEMS = 20;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** An item of the YAML form that is not a bare date: `{ date, name }` and nothing else. */
const HOLIDAY_ITEM = fields({ date: anyValue, name: anyValue });

/** The keys of a YAML mapping (their values are read where they are used). */
function keysOf(map: YAMLMap): Record<string, null> {
  return Object.fromEntries(map.items.map((pair) => [String(isScalar(pair.key) ? pair.key.value : pair.key), null]));
}

/**
 * Reads a holidays file. Two forms:
 *
 * - lines: one date per line, `YYYY-MM-DD`, optionally followed by a name; `#` starts a comment;
 * - YAML: a list whose items are dates or `{ date, name }`.
 *
 * Throws one ConfigError naming the source and every bad line (up to 20), so a mistyped date
 * never silently opens a holiday.
 */
export function parseHolidays(text: string, source: string): Holiday[] {
  const body = text.replace(/^\uFEFF/, '');
  if (body.length > HOLIDAYS_MAX_BYTES) throw new ConfigError(`${source}: larger than ${HOLIDAYS_MAX_BYTES} bytes; not a holidays file`);
  if (/[\u0000-\u0008\u000E-\u001F]/.test(body)) throw new ConfigError(`${source}: contains control characters; not a text file`);
  const problems: string[] = [];
  const list = isYamlList(body) ? fromYaml(body, problems) : fromLines(body, problems);
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_PROBLEMS);
    const more = problems.length > shown.length ? `; … and ${problems.length - shown.length} more` : '';
    throw new ConfigError(`${source}: ${shown.join('; ')}${more}`);
  }
  const seen = new Map<string, Holiday>();
  for (const h of list) if (!seen.has(h.date)) seen.set(h.date, h);
  return [...seen.values()].sort((a, b) => a.date.localeCompare(b.date));
}

/** A YAML list when the first line that says something starts with `-` or `[`. */
function isYamlList(text: string): boolean {
  const first = text.split(/\r?\n/).find((l) => l.replace(/#.*/, '').trim() !== '');
  return first !== undefined && /^\s*(-\s|-$|\[)/.test(first);
}

function fromLines(text: string, problems: string[]): Holiday[] {
  const out: Holiday[] = [];
  text.split(/\r\n|\r|\n/).forEach((line, i) => {
    const content = line.replace(/#.*/, '').trim();
    if (!content) return;
    const [first = '', ...rest] = content.split(/\s+/);
    const problem = dateProblem(first);
    if (problem) problems.push(`line ${i + 1}: ${problem}`);
    else out.push({ date: first, name: clean(rest.join(' ')) });
  });
  return out;
}

function fromYaml(text: string, problems: string[]): Holiday[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const lineOf = (node: Node | null | undefined) => (node?.range ? lineCounter.linePos(node.range[0]).line : 0);
  for (const e of doc.errors) problems.push(`line ${lineCounter.linePos(e.pos[0]).line}: not valid YAML: ${e.message.split('\n')[0]}`);
  if (doc.errors.length > 0) return [];
  if (!isSeq(doc.contents)) {
    problems.push('line 1: expected a list of dates');
    return [];
  }
  const out: Holiday[] = [];
  for (const item of doc.contents.items as Node[]) {
    const line = lineOf(item);
    // Unknown fields of an item are named by its line, as every other problem of the file.
    if (isMap(item)) problems.push(...unknownFieldProblems(HOLIDAY_ITEM, keysOf(item), (path) => `line ${line}: ${formatPath(path)}`));
    let date: unknown;
    let name: unknown = '';
    if (isScalar(item)) date = item.value;
    else if (isMap(item)) {
      date = item.get('date');
      name = item.get('name') ?? '';
    }
    const text = typeof date === 'string' ? date.trim() : JSON.stringify(date ?? null);
    const problem = typeof date === 'string' ? dateProblem(text) : `expected a date YYYY-MM-DD or { date, name }, got ${text}`;
    if (problem) problems.push(`line ${line}: ${problem}`);
    else out.push({ date: text, name: typeof name === 'string' ? clean(name) : '' });
  }
  return out;
}

/** Why `text` is not a calendar date, or null when it is one. */
function dateProblem(text: string): string | null {
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  if (!ISO_DATE.test(text)) return `${shown} is not a date (YYYY-MM-DD)`;
  const d = DateTime.fromISO(text, { zone: 'UTC' });
  if (!d.isValid) return `${shown} is not a date of the calendar`;
  if (d.year < 1970 || d.year > 2200) return `${shown} is outside the years 1970 to 2200`;
  return null;
}

/** Names only label dates in messages: one line, bounded. */
function clean(name: string): string {
  return name.replace(/\s+/g, ' ').trim().slice(0, 120);
}
