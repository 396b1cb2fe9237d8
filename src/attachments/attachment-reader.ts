import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { DEFAULT_ATTACHMENT_LIMITS, type AttachmentLimits } from './attachment-limits';
import type { AttachmentReadOutcome, AttachmentTextReader } from './attachments.port';
import { attachmentKind, type AttachmentKind } from './attachment-extractors';

/**
 * Reads attachment text in a worker thread, one file at a time, each under a wall-clock limit
 * and a heap limit. PDF and zip readers are large parsers fed with a stranger's bytes: a file
 * that loops, nests without end or inflates in memory must not hang or crash the worker that
 * also runs other mail. A thread (not a child process) because it starts in tens of
 * milliseconds, shares the installed packages, and `terminate()` stops even a synchronous loop;
 * `resourceLimits` caps its heap. The thread is kept between files and replaced only after it
 * was stopped, so a mail with many small attachments pays the start once.
 */
export function createAttachmentReader(limits: AttachmentLimits = DEFAULT_ATTACHMENT_LIMITS): AttachmentTextReader {
  // Under tsx the thread runs the TypeScript source (the --import hook is inherited); built, the .js beside this file.
  const script = path.join(__dirname, `attachment-extract-worker${path.extname(__filename)}`);
  let worker: Worker | null = null;
  let nextId = 1;
  // One file at a time: a queue of promises keeps the order and the one thread busy.
  let queue: Promise<unknown> = Promise.resolve();

  const spawn = (): Worker => {
    const resourceLimits = { maxOldGenerationSizeMb: limits.maxHeapMb, maxYoungGenerationSizeMb: 32 };
    // From source (tsx), the thread registers tsx's CommonJS hook itself: module hooks of the
    // parent's --import are not applied to worker threads on Node 20.
    const w = script.endsWith('.ts')
      ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(script)});`, { eval: true, resourceLimits })
      : new Worker(script, { resourceLimits });
    // An idle reader must not keep a process alive (a CLI run, a test file).
    w.unref();
    return w;
  };

  const stop = async (w: Worker) => {
    if (worker === w) worker = null;
    await w.terminate().catch(() => undefined);
  };

  function runInThread(kind: AttachmentKind, file: { filename: string | null; content: Buffer }): Promise<AttachmentReadOutcome> {
    const w = (worker ??= spawn());
    const id = nextId++;
    return new Promise<AttachmentReadOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: AttachmentReadOutcome, kill: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
        if (kill) void stop(w);
        resolve(outcome);
      };
      const onMessage = (m: { id: number; outcome: AttachmentReadOutcome }) => {
        if (m.id === id) finish(m.outcome, false);
      };
      const onError = (err: Error & { code?: string }) =>
        finish(
          {
            state: 'unreadable',
            reason:
              err.code === 'ERR_WORKER_OUT_OF_MEMORY'
                ? `reading it needed more than ${limits.maxHeapMb} MB of memory; stopped`
                : `reader failed: ${err.message}`.slice(0, 400),
          },
          true,
        );
      const onExit = () => finish({ state: 'unreadable', reason: 'the reader stopped unexpectedly' }, true);
      const timer = setTimeout(
        () => finish({ state: 'unreadable', reason: `reading took longer than ${limits.timeoutMs} ms; stopped` }, true),
        limits.timeoutMs,
      );
      w.on('message', onMessage);
      w.on('error', onError);
      w.on('exit', onExit);
      // A copy: the stored buffer may be a slice of a larger pool that must not be transferred.
      const content = new Uint8Array(file.content);
      w.postMessage({ id, kind, content, filename: file.filename, limits }, [content.buffer]);
    });
  }

  return {
    maxFiles: limits.maxFiles,
    read(file) {
      const kind = attachmentKind(file);
      const type = file.detectedType ?? 'unknown type';
      if (file.content.length === 0) return Promise.resolve({ state: 'skipped', reason: 'empty file (0 bytes)' });
      if (!kind) return Promise.resolve({ state: 'skipped', reason: `${type}: not a text format` });
      if (file.content.length > limits.maxBytes) {
        return Promise.resolve({
          state: 'unreadable',
          reason: `${file.content.length} bytes, above the ${limits.maxBytes} bytes read per attachment; stored, not read`,
        });
      }
      const run = queue.then(() => runInThread(kind, file));
      queue = run.catch(() => undefined);
      return run;
    },
    async close() {
      if (worker) await stop(worker);
    },
  };
}
