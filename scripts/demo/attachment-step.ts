/**
 * What the demo shows of attachments and replies: the invoice PDF the customer attached was read
 * in the index step and its page is in the draft's context; the reply that reached the SMTP sink
 * is `multipart/alternative` with the customer's message quoted beneath.
 */
import fs from 'node:fs';
import type { Pool } from '../../src/platform/pool.mariadb';
import { attachmentSourceId, formatBytes } from '../../src/attachments/attachment-limits';
import type { ReceivedReply } from './pipeline';
import type { EmailRow } from './queries';
import { relative } from './step';

interface AttachmentRow {
  part_index: number;
  filename: string | null;
  declared_type: string;
  detected_type: string | null;
  size: number;
  text_state: string | null;
  text_note: string | null;
}

/**
 * The attachments of `row` and the pages of them its newest draft was written from. Throws when
 * the draft's context holds no attachment page that contains `mustShow` (the invoice's amount):
 * the demo is also the newcomer's check that attachments reach the draft.
 */
export async function attachmentReport(pool: Pool, row: EmailRow, mustShow: string): Promise<string> {
  const files = (await pool.query(
    `SELECT part_index, filename, declared_type, detected_type, size, text_state, text_note
       FROM email_attachments WHERE email_id = ? ORDER BY part_index`,
    [row.id],
  )) as AttachmentRow[];
  if (files.length === 0) throw new Error(`${row.id} has no stored attachment`);
  const pages = (await pool.query(
    'SELECT part_index, page, text FROM email_attachment_texts WHERE email_id = ? ORDER BY part_index, page',
    [row.id],
  )) as Array<{ part_index: number; page: number; text: string }>;
  const lines: string[] = [];
  for (const f of files) {
    const read = pages.filter((p) => Number(p.part_index) === Number(f.part_index));
    const chars = read.reduce((n, p) => n + p.text.length, 0);
    lines.push(
      `attachment ${f.filename ?? `part ${f.part_index}`}: ${f.detected_type ?? 'unknown type'} by its content (declared ${f.declared_type}), ` +
        `${formatBytes(Number(f.size))}; text ${f.text_state ?? 'not read'}: ${read.length} page(s), ${chars} characters` +
        (f.text_note ? ` (${f.text_note})` : ''),
    );
  }
  const cited = pages.filter((p) => {
    const file = files.find((f) => Number(f.part_index) === Number(p.part_index));
    return row.draftContextIds.includes(attachmentSourceId(file?.filename ?? null, Number(p.part_index), Number(p.page)));
  });
  const shown = cited.find((p) => p.text.includes(mustShow));
  if (!shown) {
    throw new Error(
      `the draft of ${row.id} was written without an attachment page that says "${mustShow}" (its context: ${row.draftContextIds.join(', ') || 'none'})`,
    );
  }
  const file = files.find((f) => Number(f.part_index) === Number(shown.part_index));
  lines.push(`the draft's context cites ${attachmentSourceId(file?.filename ?? null, Number(shown.part_index), Number(shown.page))}:`);
  for (const l of shown.text.split('\n').filter((x) => x.trim() !== '')) {
    lines.push(`  | ${l}${l.includes(mustShow) ? '   <- the amount, read from the PDF' : ''}`);
  }
  return lines.join('\n');
}

/**
 * How the reply arrived: its MIME structure and whether the HTML part quotes the customer's
 * message. Writes the HTML part beside the stored .eml so it can be opened in a browser. Throws
 * when the reply is not HTML with the original quoted: that is what a customer's client shows.
 */
export function replyFormatReport(reply: ReceivedReply, quoted: string): string {
  if (!reply.html) throw new Error(`the reply ${reply.messageId ?? ''} has no HTML part (${reply.contentType})`);
  const quote = /<blockquote[^>]*type="cite"[^>]*>([\s\S]*?)<\/blockquote>/i.exec(reply.html);
  if (!quote?.[1]?.includes(quoted)) {
    throw new Error(`the HTML part of the reply ${reply.messageId ?? ''} does not quote the customer's "${quoted}"`);
  }
  const attribution = reply.text.split('\n').find((l) => /^(Am .+ schrieb .+|On .+ wrote):$/.test(l.trim()));
  let saved = '';
  if (reply.file) {
    const htmlFile = reply.file.replace(/\.eml$/, '.html');
    fs.writeFileSync(htmlFile, reply.html);
    saved = relative(htmlFile);
  }
  return [
    `MIME structure: ${reply.contentType}: ${reply.parts.join(' + ')}`,
    `the customer's message is quoted beneath the reply${attribution ? ` under "${attribution.trim()}"` : ''} (HTML: <blockquote type="cite">)`,
    ...(saved ? [`HTML part saved as ${saved}: open it in a browser to see what the customer sees`] : []),
  ].join('\n');
}
