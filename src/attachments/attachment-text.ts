import { ATTACHMENT_EVENTS, type AttachmentEvent } from './attachments.contract';
import { NO_TEXT_BY_NATURE, attachmentSourceId } from './attachment-limits';
import type { DraftContextItem } from '../retrieval';
import type { AttachmentStore, AttachmentTextReader, StoredAttachment } from './attachments.port';
import type { AuditLog } from '../platform/store.port';
import { correlationId } from '../platform/activity-context';

/** The stored attachments, their reader (absent: nothing is read) and the audit log. */
interface AttachmentDeps {
  attachments?: AttachmentStore;
  attachmentText?: AttachmentTextReader;
  audit: AuditLog;
}

/** Attachment text indexed per email: about 250 passages, bounded embedder and statement size. */
export const MAX_INDEXED_ATTACHMENT_CHARS = 200_000;

/** One page of attachment text with its citation. */
export interface AttachmentPassageSource {
  sourceId: string;
  text: string;
}

/**
 * Reads the text of the email's attachments that were not read yet (a retried index step keeps
 * what an earlier attempt found: a hostile file is never read twice), within the reader's limits.
 * Every file that cannot be read is an audit row `attachment_unreadable` with the reason; none of
 * it fails the email. Returns every page of text the email's attachments hold, cited.
 */
export async function readAttachmentTexts(deps: AttachmentDeps, emailId: string): Promise<AttachmentPassageSource[]> {
  if (!deps.attachments) return [];
  const stored = await deps.attachments.list(emailId);
  if (deps.attachmentText) {
    let read = stored.filter((a) => a.textState === 'extracted').length;
    const leftOut: StoredAttachment[] = [];
    for (const a of stored.filter((s) => s.textState === null)) {
      if (read >= deps.attachmentText.maxFiles) {
        leftOut.push(a);
        continue;
      }
      const content = await deps.attachments.content(emailId, a.partIndex);
      if (!content) continue;
      const outcome = await deps.attachmentText.read({ ...a, content });
      if (outcome.state === 'extracted') {
        read += 1;
        await deps.attachments.saveText(emailId, a.partIndex, 'extracted', outcome.note, outcome.pages);
        if (outcome.note) await audit(deps, a, ATTACHMENT_EVENTS.partlyRead, outcome.note, null);
      } else {
        await record(deps, a, outcome.state, outcome.reason);
      }
    }
    await recordLeftOut(deps, emailId, leftOut, deps.attachmentText.maxFiles);
  }
  const pages = await deps.attachments.texts(emailId);
  const out: AttachmentPassageSource[] = [];
  let used = 0;
  for (const p of pages) {
    if (used >= MAX_INDEXED_ATTACHMENT_CHARS) break;
    const text = p.text.slice(0, MAX_INDEXED_ATTACHMENT_CHARS - used);
    out.push({ sourceId: attachmentSourceId(p.filename, p.partIndex, p.page), text });
    used += text.length;
  }
  return out;
}

async function record(deps: AttachmentDeps, a: StoredAttachment, state: 'encrypted' | 'unreadable' | 'skipped', reason: string) {
  await deps.attachments!.saveText(a.emailId, a.partIndex, state, reason, []);
  // An image or an empty file holds no text by nature: only files that should have had text
  // (a legacy .doc included) are audited.
  if (state !== 'skipped' || !NO_TEXT_BY_NATURE.test(reason)) {
    await audit(deps, a, ATTACHMENT_EVENTS.unreadable, state === 'encrypted' ? `encrypted: ${reason}` : reason, state);
  }
}

/**
 * Files past the per-mail limit: each one's state says why it was not read, and one audit row
 * names them all (200 attachments are one event for the reviewer, not 180 rows).
 */
async function recordLeftOut(deps: AttachmentDeps, emailId: string, leftOut: StoredAttachment[], maxFiles: number) {
  if (leftOut.length === 0) return;
  const reason = `not read: the first ${maxFiles} readable attachments of a mail are read`;
  for (const a of leftOut) await deps.attachments!.saveText(a.emailId, a.partIndex, 'skipped', reason, []);
  const names = leftOut.map((a) => a.filename ?? `part ${a.partIndex + 1}`);
  const shown = names.slice(0, 10).join(', ') + (names.length > 10 ? ` and ${names.length - 10} more` : '');
  await deps.audit.record({
    emailId,
    correlationId: correlationId(),
    eventType: ATTACHMENT_EVENTS.unreadable,
    errorClass: 'permanent',
    message: `${leftOut.length} attachments ${reason}: ${shown}`.slice(0, 2000),
    details: { state: 'skipped', limit: maxFiles, partIndexes: leftOut.map((a) => a.partIndex), filenames: names.slice(0, 200) },
    // One row per batch: a retried index step that left out the same files writes the same key.
    eventKey: `${emailId}:${ATTACHMENT_EVENTS.unreadable}:over-limit:${leftOut[0]!.partIndex}`,
  });
}

async function audit(deps: AttachmentDeps, a: StoredAttachment, eventType: AttachmentEvent, reason: string, state: string | null) {
  const name = a.filename ?? `part ${a.partIndex + 1}`;
  await deps.audit.record({
    emailId: a.emailId,
    correlationId: correlationId(),
    eventType,
    errorClass: eventType === ATTACHMENT_EVENTS.unreadable ? 'permanent' : null,
    message: `attachment ${name} (${a.detectedType ?? 'unknown type'}): ${reason}`.slice(0, 2000),
    details: { partIndex: a.partIndex, filename: a.filename, detectedType: a.detectedType, declaredType: a.declaredType, state },
    eventKey: `${a.emailId}:${eventType}:${a.partIndex}`,
  });
}

/** At most this much of the answered email's attachments goes into a draft's context (of LLM_CONTEXT_CHARS, 8,000 by default). */
const DRAFT_ATTACHMENT_CHARS = 4_000;
const DRAFT_ATTACHMENT_PAGE_CHARS = 2_000;

/**
 * The answered email's attachment pages as context items, first pages first: an invoice states its
 * amount at the top. Cited `attachment:<file>#p<page>`. A store that fails leaves the draft without them.
 */
export async function attachmentContext(deps: Pick<AttachmentDeps, 'attachments'>, emailId: string): Promise<DraftContextItem[]> {
  if (!deps.attachments) return [];
  const pages = await deps.attachments.texts(emailId);
  const items: DraftContextItem[] = [];
  let used = 0;
  for (const p of pages) {
    if (used >= DRAFT_ATTACHMENT_CHARS) break;
    const text = p.text.slice(0, Math.min(DRAFT_ATTACHMENT_PAGE_CHARS, DRAFT_ATTACHMENT_CHARS - used));
    items.push({ sourceId: attachmentSourceId(p.filename, p.partIndex, p.page), kind: 'attachment', text, title: p.filename ?? undefined });
    used += text.length;
  }
  return items;
}
