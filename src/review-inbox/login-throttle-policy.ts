/**
 * How fast anyone may guess review-inbox passwords. Pure rules over the counters the inbox keeps
 * in MariaDB (inbox_login_throttle), so every inbox process applies the same limits:
 *
 * - per account (the name typed, known or not): after the n-th failure in a row the next attempt
 *   waits 1, 2, 4, 8 s; from the 5th failure on, each failure locks the name for 15 min. The count
 *   ends with a successful sign-in, or 24 h after the last failure.
 * - per client address (IPv6 by its /64): 20 failures within 10 min lock the address for 10 min.
 *
 * While a delay or lock holds, the password is not even checked, so a refusal says nothing about it.
 */
import type { LoginRefusalReason } from './review-inbox.contract';

export const LOGIN_THROTTLE = {
  account: { delaysSeconds: [1, 2, 4, 8], lockAfter: 5, lockMinutes: 15, forgetHours: 24 },
  address: { lockAfter: 20, windowMinutes: 10, lockMinutes: 10 },
  /** Sign-in posts per address and minute in one inbox process (successes included), before any database work. */
  burstPerMinute: 30,
} as const;

export interface ThrottleCounter {
  failures: number;
  windowStartedAt: Date;
  lastFailureAt: Date | null;
  nextAttemptAt: Date | null;
}

export type ThrottleVerdict =
  { ok: true } | { ok: false; reason: Exclude<LoginRefusalReason, 'wrong_credentials' | 'burst'>; retryAfterSeconds: number };

const MINUTE = 60_000;

function accountFailures(c: ThrottleCounter, now: Date): number {
  const quietFor = c.lastFailureAt ? now.getTime() - c.lastFailureAt.getTime() : Infinity;
  return quietFor > LOGIN_THROTTLE.account.forgetHours * 60 * MINUTE ? 0 : c.failures;
}

function addressWindowOver(c: ThrottleCounter, now: Date): boolean {
  const locked = c.nextAttemptAt !== null && c.nextAttemptAt > now;
  return !locked && now.getTime() - c.windowStartedAt.getTime() >= LOGIN_THROTTLE.address.windowMinutes * MINUTE;
}

const wait = (until: Date, now: Date) => Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));

/** May an attempt go ahead now? The address is checked first: its lock covers every name. */
export function judgeAttempt(account: ThrottleCounter, address: ThrottleCounter, now: Date): ThrottleVerdict {
  if (address.nextAttemptAt && address.nextAttemptAt > now) {
    return { ok: false, reason: 'address_locked', retryAfterSeconds: wait(address.nextAttemptAt, now) };
  }
  if (account.nextAttemptAt && account.nextAttemptAt > now && accountFailures(account, now) > 0) {
    const locked = account.failures >= LOGIN_THROTTLE.account.lockAfter;
    return { ok: false, reason: locked ? 'account_locked' : 'too_soon', retryAfterSeconds: wait(account.nextAttemptAt, now) };
  }
  return { ok: true };
}

/** The account's counter after one more failure: a growing delay, then a lock per failure. */
export function accountAfterFailure(c: ThrottleCounter, now: Date): ThrottleCounter {
  const n = accountFailures(c, now) + 1;
  const a = LOGIN_THROTTLE.account;
  const delayMs = n >= a.lockAfter ? a.lockMinutes * MINUTE : (a.delaysSeconds[n - 1] ?? a.delaysSeconds.at(-1)!) * 1000;
  return {
    failures: n,
    windowStartedAt: n === 1 ? now : c.windowStartedAt,
    lastFailureAt: now,
    nextAttemptAt: new Date(now.getTime() + delayMs),
  };
}

/** The address's counter after one more failure: a fixed window, a lock when it is full. */
export function addressAfterFailure(c: ThrottleCounter, now: Date): ThrottleCounter {
  const fresh = addressWindowOver(c, now) || c.failures === 0;
  const n = fresh ? 1 : c.failures + 1;
  const a = LOGIN_THROTTLE.address;
  return {
    failures: n,
    windowStartedAt: fresh ? now : c.windowStartedAt,
    lastFailureAt: now,
    nextAttemptAt: n >= a.lockAfter ? new Date(now.getTime() + a.lockMinutes * MINUTE) : null,
  };
}

/** The address key: IPv4 as it is, IPv6 by its /64 (one host usually holds a whole /64). */
export function addressKey(address: string): string {
  const plain = address.replace(/^::ffff:(?=\d+\.)/, '');
  if (!plain.includes(':')) return plain;
  const [head = '', tail = ''] = plain.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = plain.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => (parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}
