/**
 * A password sign-in to the review inbox, guarded: a burst limit per process, then the shared
 * counters per name and per address (growing delays, temporary locks; lib/login-throttle-policy.ts),
 * then the password. Every refusal is one audit row (who was tried, from where, why; never the
 * password), which the worker counts as email_rag_inbox_login_refusals_total.
 */
import { verifyPassword } from '../adapters/bcrypt-password';
import type { LoginBurstLimiter } from '../adapters/login-burst-limiter';
import type { InboxUsers } from '../adapters/mariadb/inbox-users';
import type { LoginThrottle } from '../adapters/mariadb/login-throttle';
import { INBOX_LOGIN_REFUSED, type LoginRefusalReason } from '../lib/domain';
import { addressKey } from '../lib/login-throttle-policy';
import type { AuditLog } from '../ports/store';
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

export function createLoginGuard(deps: LoginGuardDeps) {
  const refuse = async (
    name: string,
    address: string,
    reason: LoginRefusalReason,
    facts: { retryAfterSeconds?: number; accountFailures?: number; addressFailures?: number; account?: string },
  ): Promise<SignInResult> => {
    const shown = name.slice(0, 191);
    const wait = facts.retryAfterSeconds ? `; next attempt in ${facts.retryAfterSeconds} s` : '';
    await deps.audit.record({
      emailId: null,
      correlationId: `inbox-login-${accountKey(name)}`.slice(0, 191),
      eventType: INBOX_LOGIN_REFUSED,
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
      if (burst !== null) return refuse(name, address, 'burst', { retryAfterSeconds: burst });
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
