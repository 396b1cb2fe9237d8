/**
 * A password sign-in to the review inbox, guarded: a burst limit per process, then the shared
 * counters per name and per address (growing delays, temporary locks; src/review-inbox/login-throttle-policy.ts),
 * then the password. Every refusal is one audit row (who was tried, from where, why; never the
 * password), which the worker counts as email_rag_inbox_login_refusals_total.
 */
import { verifyPassword } from './password.bcrypt';
import type { LoginBurstLimiter } from './login-burst-limiter';
import type { InboxUsers } from './inbox-users.mariadb';
import type { LoginThrottle } from './login-throttle.mariadb';
import { type LoginRefusalReason, REVIEW_INBOX_AUDIT_EVENTS } from './review-inbox.contract';
import { addressKey } from './login-throttle-policy';
import type { AuditLog } from '../platform/store.port';
import type { Actor } from './auth';

export type SignInResult = { ok: true; actor: Actor } | { ok: false; reason: LoginRefusalReason; retryAfterSeconds?: number };

export interface LoginGuardDeps {
  users: InboxUsers;
  throttle: LoginThrottle;
  burst: LoginBurstLimiter;
  audit: AuditLog;
}

/** The counter key of a name: as typed, trimmed and lower-cased (known or not). */
export function accountKey(name: string): string {
  return name.trim().toLowerCase().slice(0, 191);
}

/** A client over the burst limit gets one audit row per address this often, counting the posts refused since. */
const BURST_AUDIT_EVERY_MS = 10_000;
const BURST_TRACKED = 10_000;

export function createLoginGuard(deps: LoginGuardDeps) {
  // Refusals over the burst limit cost no database work, and must not cost an audit row each
  // either: a script at full speed would write hundreds a second. One row per address and
  // 10 s carries the count (details.count), which the refusal metric adds up.
  const bursts = new Map<string, { auditedAt: number; unaudited: number }>();
  const burstRow = (where: string): number | null => {
    const now = Date.now();
    const seen = bursts.get(where);
    if (seen && now - seen.auditedAt < BURST_AUDIT_EVERY_MS) {
      seen.unaudited += 1;
      return null;
    }
    bursts.delete(where);
    if (bursts.size >= BURST_TRACKED) bursts.delete(bursts.keys().next().value!);
    bursts.set(where, { auditedAt: now, unaudited: 0 });
    return (seen?.unaudited ?? 0) + 1;
  };
  const refuse = async (
    name: string,
    address: string,
    reason: LoginRefusalReason,
    facts: { retryAfterSeconds?: number; accountFailures?: number; addressFailures?: number; account?: string; count?: number },
  ): Promise<SignInResult> => {
    const shown = name.slice(0, 191);
    const wait = facts.retryAfterSeconds ? `; next attempt in ${facts.retryAfterSeconds} s` : '';
    await deps.audit.record({
      emailId: null,
      correlationId: `inbox-login-${accountKey(name)}`.slice(0, 191),
      eventType: REVIEW_INBOX_AUDIT_EVENTS.loginRefused,
      actor: shown,
      message: `review inbox sign-in as ${JSON.stringify(shown)} from ${address} refused: ${reason}${wait}`,
      details: { reason, address, ...facts },
    });
    return { ok: false, reason, ...(facts.retryAfterSeconds ? { retryAfterSeconds: facts.retryAfterSeconds } : {}) };
  };

  return {
    async signIn(name: string, password: string, address: string): Promise<SignInResult> {
      const where = addressKey(address);
      const burst = await deps.burst.take(where);
      if (burst !== null) {
        const count = burstRow(where);
        if (count === null) return { ok: false, reason: 'burst', retryAfterSeconds: burst };
        return refuse(name, address, 'burst', { retryAfterSeconds: burst, count });
      }
      const account = accountKey(name);
      const claim = await deps.throttle.claim(account, where);
      if (!claim.ok) {
        const { reason, retryAfterSeconds, accountFailures, addressFailures } = claim;
        return refuse(name, address, reason, { retryAfterSeconds, accountFailures, addressFailures });
      }
      const user = name ? await deps.users.find(name.trim()) : null;
      const matches = await verifyPassword(password, user?.passwordHash);
      if (!user || !matches || user.disabledAt) {
        return refuse(name, address, 'wrong_credentials', {
          accountFailures: claim.accountFailures,
          addressFailures: claim.addressFailures,
          account: !user ? 'unknown' : user.disabledAt ? 'disabled' : 'known',
        });
      }
      await deps.throttle.succeeded(account, where);
      return { ok: true, actor: { name: user.name, role: user.role } };
    },
  };
}
export type LoginGuard = ReturnType<typeof createLoginGuard>;
