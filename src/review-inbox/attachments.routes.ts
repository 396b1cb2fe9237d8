import type { FastifyReply } from 'fastify';
import { createMariaDbAccessLog } from '../privacy/index.adapters';
import { ACCESS_ACTIONS } from '../privacy';
import { attachmentSourceId, formatBytes, INLINE_IMAGE_TYPES, type AttachmentStore, type StoredAttachment } from '../attachments';
import type { InboxContext, InboxDeps } from './inbox-context';

/**
 * Types a download may be labelled with: formats a browser hands to a viewer or saves, never
 * renders as a page. Anything else (HTML, SVG, XML, unknown) goes out as application/octet-stream,
 * so a hostile file named invoice.pdf cannot run in our origin even if a browser ignored the
 * `attachment` disposition.
 */
const DOWNLOAD_TYPES = new Set([
  ...INLINE_IMAGE_TYPES,
  'application/pdf',
  'application/zip',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.oasis.opendocument.text',
  'message/rfc822',
]);

export function safeDownloadType(a: Pick<StoredAttachment, 'detectedType'>): string {
  const t = a.detectedType ?? '';
  if (DOWNLOAD_TYPES.has(t)) return t;
  if (t === 'text/plain') return 'text/plain; charset=utf-8';
  return 'application/octet-stream';
}

/** RFC 6266 filename: an ASCII fallback and the UTF-8 name, both without quotes or line breaks. */
function disposition(kind: 'attachment' | 'inline', a: StoredAttachment): string {
  const name = (a.filename ?? `attachment-${a.partIndex + 1}`).replace(/[\p{Cc}"\\/]/gu, '_').slice(0, 200);
  const ascii = name.replace(/[^\x20-\x7e]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** The raster images the mail embeds (cid:) or attaches, shown in the review view from our origin. */
export const isInlineImage = (a: StoredAttachment) => a.detectedType !== null && INLINE_IMAGE_TYPES.includes(a.detectedType);

/** What the review page lists of each attachment. */
export function attachmentRows(emailId: string, list: StoredAttachment[]) {
  const base = `/email/${encodeURIComponent(emailId)}`;
  return list.map((a) => ({
    name: a.filename ?? `attachment ${a.partIndex + 1}`,
    size: formatBytes(a.size),
    type: a.detectedType ?? 'unknown',
    // The sender's word, shown only when it disagrees with the content.
    declared: a.declaredType !== a.detectedType ? a.declaredType : null,
    state: a.textState,
    note: a.textNote,
    href: `${base}/attachment/${a.partIndex}`,
    inline: isInlineImage(a) ? `${base}/inline/${a.partIndex}` : null,
    cid: a.contentId,
  }));
}

/** The attachment page a draft cited (`attachment:<file>#p<page>`), as a source to show; null when gone. */
export async function attachmentSource(deps: Pick<InboxDeps, 'attachments'>, emailId: string, sid: string) {
  const page = (await deps.attachments?.texts(emailId))?.find((p) => attachmentSourceId(p.filename, p.partIndex, p.page) === sid);
  return page
    ? { id: sid, kind: 'attachment', title: `${page.filename ?? `attachment ${page.partIndex + 1}`}, p. ${page.page}`, text: page.text }
    : null;
}

async function find(store: AttachmentStore, id: string, part: string): Promise<StoredAttachment | null> {
  if (!/^\d{1,6}$/.test(part)) return null;
  return (await store.list(id)).find((a) => a.partIndex === Number(part)) ?? null;
}

const notFound = (reply: FastifyReply) => reply.code(404).type('text/plain; charset=utf-8').send('404: no such attachment');

/**
 * Downloads for a signed-in reviewer (every route but the login is behind the sign-in), always
 * `Content-Disposition: attachment` with a safe type; the inline route serves raster images only,
 * recognised by their content, for the review view's <img> (the CSP allows images from 'self').
 */
export function registerAttachmentRoutes({ app, deps }: InboxContext): void {
  const store = deps.attachments;
  const access = createMariaDbAccessLog(deps.pool);
  if (!store) return;
  app.get('/email/:id/attachment/:part', async (req, reply) => {
    const { id, part } = req.params as { id: string; part: string };
    const a = await find(store, id, part);
    const content = a ? await store.content(id, a.partIndex) : null;
    if (!a || !content) return notFound(reply);
    await access.record({
      actor: req.actor!.name,
      action: ACCESS_ACTIONS.attachmentDownloaded,
      emailId: id,
      detail: `part ${a.partIndex + 1}: ${a.filename ?? 'unnamed'}`,
    });
    return reply.header('Content-Disposition', disposition('attachment', a)).type(safeDownloadType(a)).send(content);
  });
  app.get('/email/:id/inline/:part', async (req, reply) => {
    const { id, part } = req.params as { id: string; part: string };
    const a = await find(store, id, part);
    if (!a || !isInlineImage(a)) return notFound(reply);
    const content = await store.content(id, a.partIndex);
    if (!content) return notFound(reply);
    return reply.header('Content-Disposition', disposition('inline', a)).type(a.detectedType!).send(content);
  });
}
