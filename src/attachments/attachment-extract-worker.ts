/**
 * The reader thread of attachment-reader.ts: reads one file at a time and answers with its text
 * or why there is none. It holds nothing between files, so the reader can end it at any moment.
 */
import { parentPort } from 'node:worker_threads';
import type { AttachmentLimits } from './attachment-limits';
import { extractAttachment, type AttachmentKind } from './attachment-extractors';

interface Job {
  id: number;
  kind: AttachmentKind;
  content: Uint8Array;
  filename: string | null;
  limits: AttachmentLimits;
}

parentPort?.on('message', (job: Job) => {
  extractAttachment(
    job.kind,
    Buffer.from(job.content.buffer, job.content.byteOffset, job.content.byteLength),
    job.limits,
    job.filename,
  ).then(
    (outcome) => parentPort?.postMessage({ id: job.id, outcome }),
    (err: unknown) =>
      parentPort?.postMessage({
        id: job.id,
        outcome: { state: 'unreadable', reason: `reader failed: ${err instanceof Error ? err.message : String(err)}`.slice(0, 400) },
      }),
  );
});
