import { createHash } from 'node:crypto';
import type { AttachmentFile, AttachmentPage, AttachmentStore, AttachmentTextState, StoredAttachment } from './attachments.port';
import { FAILURE_TYPES } from '../platform/contract';
import { PermanentError } from '../platform/errors';
import { RAW_CHUNK_BYTES } from '../platform/limits.mariadb';
import { classifyDbError, query, type Pool } from '../platform/pool.mariadb';

interface Row {
  email_id: string;
  part_index: number;
  filename: string | null;
  declared_type: string;
  detected_type: string | null;
  size: number | bigint;
  sha256: string;
  disposition: string | null;
  content_id: string | null;
  text_state: AttachmentTextState | null;
  text_note: string | null;
}

const COLUMNS =
  'email_id, part_index, filename, declared_type, detected_type, size, sha256, disposition, content_id, text_state, text_note';

const toStored = (r: Row): StoredAttachment => ({
  emailId: r.email_id,
  partIndex: Number(r.part_index),
  filename: r.filename,
  declaredType: r.declared_type,
  detectedType: r.detected_type,
  size: Number(r.size),
  sha256: r.sha256,
  disposition: r.disposition,
  contentId: r.content_id,
  textState: r.text_state,
  textNote: r.text_note,
});

/** At most `max` characters: names and types are the sender's to write. */
const fit = (value: string | null, max: number) => (value === null ? null : value.slice(0, max));

/**
 * Attachments in MariaDB: the first chunk in `email_attachments.data`, the rest in
 * `email_attachment_parts`, in one transaction per attachment, so no statement depends on the
 * file's size (like raw mail) and a crash half-way leaves the old row or the new one.
 */
export function createMariaDbAttachmentStore(pool: Pool): AttachmentStore {
  return {
    async save(emailId: string, file: AttachmentFile & { detectedType: string | null }): Promise<void> {
      const bytes = file.content;
      const chunks = Math.max(1, Math.ceil(bytes.length / RAW_CHUNK_BYTES));
      const chunk = (i: number) => bytes.subarray(i * RAW_CHUNK_BYTES, (i + 1) * RAW_CHUNK_BYTES);
      const sha = createHash('sha256').update(bytes).digest('hex');
      let conn;
      try {
        conn = await pool.getConnection();
      } catch (err) {
        throw classifyDbError(err, 'saving an attachment');
      }
      try {
        await conn.beginTransaction();
        // A retried parse step writes the same bytes again; what the index step found stays.
        await query(
          conn,
          'saving an attachment',
          `INSERT INTO email_attachments (email_id, part_index, filename, declared_type, detected_type, size, sha256, disposition, content_id, chunks, data)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON DUPLICATE KEY UPDATE filename = VALUES(filename), declared_type = VALUES(declared_type),
             detected_type = VALUES(detected_type), size = VALUES(size), disposition = VALUES(disposition),
             content_id = VALUES(content_id), chunks = VALUES(chunks), data = VALUES(data),
             text_state = IF(sha256 = VALUES(sha256), text_state, NULL), sha256 = VALUES(sha256)`,
          [
            emailId,
            file.partIndex,
            fit(file.filename, 255),
            file.declaredType.slice(0, 255),
            fit(file.detectedType, 255),
            bytes.length,
            sha,
            fit(file.disposition, 32),
            fit(file.contentId, 255),
            chunks,
            chunk(0),
          ],
        );
        for (let i = 1; i < chunks; i++) {
          await query(
            conn,
            'saving part of an attachment',
            'REPLACE INTO email_attachment_parts (email_id, part_index, seq, data) VALUES (?, ?, ?, ?)',
            [emailId, file.partIndex, i, chunk(i)],
          );
        }
        await query(
          conn,
          'pruning attachment parts',
          'DELETE FROM email_attachment_parts WHERE email_id = ? AND part_index = ? AND seq >= ?',
          [emailId, file.partIndex, chunks],
        );
        await conn.commit();
      } catch (err) {
        await conn.rollback().catch(() => undefined);
        throw classifyDbError(err, 'saving an attachment');
      } finally {
        await conn.release().catch(() => undefined);
      }
    },

    async list(emailId: string): Promise<StoredAttachment[]> {
      const rows = await query<Row[]>(
        pool,
        'listing attachments',
        `SELECT ${COLUMNS} FROM email_attachments WHERE email_id = ? ORDER BY part_index`,
        [emailId],
      );
      return rows.map(toStored);
    },

    async content(emailId: string, partIndex: number): Promise<Buffer | null> {
      const rows = await query<Array<{ data: Buffer; size: number | bigint; chunks: number }>>(
        pool,
        'reading an attachment',
        'SELECT data, size, chunks FROM email_attachments WHERE email_id = ? AND part_index = ?',
        [emailId, partIndex],
      );
      const row = rows[0];
      if (!row) return null;
      if (row.chunks <= 1) return row.data;
      const parts = await query<Array<{ data: Buffer }>>(
        pool,
        'reading the parts of an attachment',
        'SELECT data FROM email_attachment_parts WHERE email_id = ? AND part_index = ? ORDER BY seq',
        [emailId, partIndex],
      );
      const bytes = Buffer.concat([row.data, ...parts.map((p) => p.data)]);
      if (bytes.length !== Number(row.size)) {
        throw new PermanentError(
          `attachment ${partIndex} of ${emailId} is incomplete: ${bytes.length} of ${Number(row.size)} bytes`,
          FAILURE_TYPES.rawIncomplete,
        );
      }
      return bytes;
    },

    async byContentId(emailId: string, contentId: string): Promise<StoredAttachment | null> {
      const rows = await query<Row[]>(
        pool,
        'finding an inline part',
        `SELECT ${COLUMNS} FROM email_attachments WHERE email_id = ? AND content_id = ? ORDER BY part_index LIMIT 1`,
        [emailId, contentId.slice(0, 255)],
      );
      return rows[0] ? toStored(rows[0]) : null;
    },

    async saveText(
      emailId: string,
      partIndex: number,
      state: AttachmentTextState,
      note: string | null,
      pages: AttachmentPage[],
    ): Promise<void> {
      let conn;
      try {
        conn = await pool.getConnection();
      } catch (err) {
        throw classifyDbError(err, 'saving attachment text');
      }
      try {
        await conn.beginTransaction();
        await query(conn, 'clearing attachment text', 'DELETE FROM email_attachment_texts WHERE email_id = ? AND part_index = ?', [
          emailId,
          partIndex,
        ]);
        for (const p of pages) {
          await query(
            conn,
            'saving attachment text',
            'INSERT INTO email_attachment_texts (email_id, part_index, page, text) VALUES (?, ?, ?, ?)',
            [emailId, partIndex, p.page, p.text],
          );
        }
        await query(
          conn,
          'recording what the attachment held',
          'UPDATE email_attachments SET text_state = ?, text_note = ? WHERE email_id = ? AND part_index = ?',
          [state, fit(note, 500), emailId, partIndex],
        );
        await conn.commit();
      } catch (err) {
        await conn.rollback().catch(() => undefined);
        throw classifyDbError(err, 'saving attachment text');
      } finally {
        await conn.release().catch(() => undefined);
      }
    },

    async texts(emailId: string) {
      const rows = await query<Array<{ part_index: number; page: number; text: string; filename: string | null }>>(
        pool,
        'reading attachment text',
        `SELECT t.part_index, t.page, t.text, a.filename FROM email_attachment_texts t
           JOIN email_attachments a ON a.email_id = t.email_id AND a.part_index = t.part_index
          WHERE t.email_id = ? ORDER BY t.part_index, t.page`,
        [emailId],
      );
      return rows.map((r) => ({ partIndex: Number(r.part_index), page: Number(r.page), text: r.text, filename: r.filename }));
    },
  };
}
