/**
 * What the Temporal Web UI and `temporal workflow describe` show for a workflow: a one-line summary,
 * details and the current details line. The Web UI renders all three as Markdown (raw HTML
 * included), and much of what they show comes from whoever wrote a mail, so these helpers cut every
 * value to one line and show it literally: no links, images or markup a sender could plant. Free
 * of I/O: workflows import it. An email's own lines are src/email/email-display.ts.
 */

/** Static summary and details given to a workflow at start. */
export interface WorkflowDisplay {
  summary: string;
  details: string;
}

/**
 * Temporal refuses a start whose summary payload exceeds 400 bytes (`limit.userMetadataSummarySize`),
 * counting the serialised payload: JSON escapes, the encoding metadata and, with an encrypting codec,
 * its envelope. The summary's JSON stays within this, leaving the rest for metadata and a codec.
 */
export const SUMMARY_MAX_JSON_BYTES = 280;
export const DETAIL_CHARS = 200;

// C0/C1 controls, bidi overrides and isolates, zero-width and line/paragraph separators: they can
// hide or reorder text on screen.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]+/g;

/** One line: invisible characters become spaces, runs of white space one space, cut with an ellipsis. */
export function oneLine(text: string, maxChars: number): string {
  const chars = [...text.replace(INVISIBLE, ' ').replace(/\s+/g, ' ').trim()];
  return chars.length <= maxChars ? chars.join('') : `${chars.slice(0, Math.max(0, maxChars - 1)).join('')}…`;
}

/**
 * Text that Markdown (CommonMark, as the Web UI renders it) shows as it is: punctuation that could
 * start markup, HTML, an entity or an autolink is backslash-escaped, so does a leading block marker.
 */
export function markdownLiteral(text: string): string {
  return (
    text
      // Emphasis, code, links and images, raw HTML and autolinks in angle brackets, strikethrough.
      .replace(/[\\`*[<~]/g, (c) => `\\${c}`)
      .replace(/&(?=#?[a-z0-9]+;)/gi, '\\&')
      // An underscore inside a word never starts emphasis (awaiting_approval stays readable).
      .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_')
      // A scheme and its colon (https://, mailto:) would become a link.
      .replace(/(?<![a-z0-9+.-])([0-9+.-]*[a-z][a-z0-9+.-]*):(?=\S)/gi, '$1\\:')
      // The renderer's typographer makes -- a dash (and --force a different word).
      .replace(/-(?=-)/g, '-\\')
      // Block markers count only at the start: heading, quote, list.
      .replace(/^(\s*)([-+#>]|\d+[.)])/, (_m, space: string, marker: string) => `${space}${marker.slice(0, -1)}\\${marker.slice(-1)}`)
  );
}

/** A Markdown code span: shown literally in the Web UI and still copyable from the CLI. */
export function codeSpan(text: string, maxChars = DETAIL_CHARS): string {
  return `\`${oneLine(text.replace(/`/g, "'"), maxChars)}\``;
}

/** Bytes of `text` in UTF-8, without Node's Buffer (workflows import this file). */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}
