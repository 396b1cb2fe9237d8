import { Readable } from 'node:stream';

const CHUNK = 16 * 1024;

/**
 * The message as the SMTP connection reads it: the first read means the server asked for the
 * message (354); every byte is fed, then the stream waits until they are on the wire and the
 * final-dot hook has run before it ends, which is what makes the connection write the dot.
 */
export class HandOver extends Readable {
  /** Set at the first read: the server asked for the message (from here on it may have bytes of it). */
  started = false;
  private offset = 0;
  private finishing = false;
  /** Set once the stream was allowed to end: from here on the outcome can be in doubt. */
  dotReleased = false;
  /** A hook's own error, kept apart because nodemailer rewrites the code of stream errors. */
  hookError: unknown = null;

  constructor(
    private readonly raw: Buffer,
    private readonly steps: { beforeData(): Promise<void>; flushed(): Promise<void>; beforeFinalDot(): Promise<void> },
  ) {
    super({ highWaterMark: CHUNK });
  }

  override _read(): void {
    if (!this.started) {
      this.started = true;
      this.steps.beforeData().then(
        () => this.feed(),
        (err: unknown) => this.abort(err),
      );
      return;
    }
    this.feed();
  }

  private feed(): void {
    while (this.offset < this.raw.length) {
      const chunk = this.raw.subarray(this.offset, this.offset + CHUNK);
      this.offset += chunk.length;
      if (!this.push(chunk)) return;
    }
    if (this.finishing || this.destroyed) return;
    this.finishing = true;
    this.steps
      .flushed()
      .then(() => this.steps.beforeFinalDot())
      .then(
        () => {
          if (this.destroyed || this.hookError) return;
          this.dotReleased = true;
          this.push(null);
        },
        (err: unknown) => this.abort(err),
      );
  }

  private abort(err: unknown): void {
    this.hookError = err ?? new Error('aborted before the final dot');
    this.destroy(new Error('message aborted before the final dot'));
  }
}
