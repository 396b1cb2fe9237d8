/**
 * The few error classes of the product. Each carries a stable `code` that lands in the audit
 * log and in Temporal's failure `type`, so operators can group failures by cause.
 */
import { FAILURE_TYPES, type FailureCode } from './contract';

export type ErrorClass = 'transient' | 'permanent' | 'dependency' | 'unclear';

export class EmailRagError extends Error {
  constructor(
    message: string,
    readonly code: FailureCode,
    readonly errorClass: ErrorClass,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A failure that may heal by itself: network, timeouts, 4xx SMTP, 429/5xx HTTP. */
export class TransientError extends EmailRagError {
  constructor(message: string, code: FailureCode = FAILURE_TYPES.transient, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(message, code, 'transient', options);
    this.retryAfterMs = options?.retryAfterMs;
  }
  readonly retryAfterMs: number | undefined;
}

/** A failure that will not change on retry: corrupt input, schema mismatch, rejected config. */
export class PermanentError extends EmailRagError {
  constructor(message: string, code: FailureCode = FAILURE_TYPES.permanent, options?: { cause?: unknown }) {
    super(message, code, 'permanent', options);
  }
}

/**
 * Not a failure: the step found that its work must not be done (a person answered the mail
 * outside the assistant). Never retried; its queue row ends `done`, not `dead`, and the workflow
 * ends the email as its code says.
 */
export class StandDownError extends PermanentError {}

/** A message above MAX_MESSAGE_BYTES: never downloaded or stored, never retried. */
export class TooLargeError extends PermanentError {
  constructor(
    message: string,
    readonly size: number,
    readonly limit: number,
    /** What is known without downloading it (IMAP envelope, or the head of a file). */
    readonly known: { subject?: string | null; from?: string | null } = {},
  ) {
    super(message, FAILURE_TYPES.tooLarge);
  }
}

/** An optional service is missing or down: degrade and carry on. */
export class DependencyError extends EmailRagError {
  constructor(message: string, code: FailureCode = FAILURE_TYPES.dependency, options?: { cause?: unknown }) {
    super(message, code, 'dependency', options);
  }
}

/** Configuration that cannot work; reported once at start, before anything runs. */
export class ConfigError extends EmailRagError {
  constructor(message: string) {
    super(message, FAILURE_TYPES.config, 'permanent');
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
