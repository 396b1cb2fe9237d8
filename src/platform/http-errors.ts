import { httpFailureType, type HttpService } from './contract';
import { PermanentError, TransientError } from './errors';

/** Retry-After in seconds or as an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** HTTP 408/409/429 and 5xx may heal; any other 4xx will not. */
export function classifyHttpStatus(
  service: HttpService,
  status: number,
  detail: string,
  retryAfter?: string | null,
  cause?: unknown,
): Error {
  const transient = status === 408 || status === 409 || status === 429 || status >= 500;
  const code = httpFailureType(service, status);
  const message = `${service} answered HTTP ${status}: ${detail}`;
  return transient
    ? new TransientError(message, code, { cause, retryAfterMs: parseRetryAfter(retryAfter) })
    : new PermanentError(message, code, { cause });
}
