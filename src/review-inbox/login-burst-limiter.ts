/**
 * A cheap in-process guard in front of the sign-in counters in MariaDB: a client that posts the
 * login form faster than any person could is refused before a transaction or a bcrypt hash is
 * spent on it. rate-limiter-flexible's memory store; its MySQL store cannot serve here (it needs
 * the callback-style `mysql` API with `??` identifier placeholders, which the promise pool of the
 * `mariadb` driver has not), and the durable limits live in our own table anyway.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export function createLoginBurstLimiter(perMinute: number) {
  const limiter = new RateLimiterMemory({ keyPrefix: 'inbox-login', points: perMinute, duration: 60 });
  return {
    /** null: go ahead; otherwise the seconds until the next post from `key` is taken. */
    async take(key: string): Promise<number | null> {
      try {
        await limiter.consume(key);
        return null;
      } catch (res) {
        if (res instanceof RateLimiterRes) return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
        throw res;
      }
    },
  };
}
export type LoginBurstLimiter = ReturnType<typeof createLoginBurstLimiter>;
