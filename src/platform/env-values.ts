/**
 * The primitives every configuration section reads the environment with (src/config.ts assembles
 * the sections). Each reader trims the value, falls back to its default when the variable is unset
 * or empty, and on a bad value records one problem and returns the default, so that one
 * ConfigError lists every mistake at once.
 *
 * Hand-written on purpose, not a schema library: the operator reads these messages at start, and
 * each names the variable, the accepted range or words and the value given
 * (`IMAP_PORT must be a whole number between 1 and 65535, got "abc"`). Operators' runbooks and the
 * tests rely on those exact words, which a schema library would phrase its own way.
 */
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { SecretRef } from './secret-ref';

/** The environment a configuration is read from: process.env, or a test's object. */
export type Env = Record<string, string | undefined>;

/**
 * The one spelling of a yes/no variable, for every one of them (CASES, IMAP_TLS,
 * INBOX_COOKIE_SECURE, …): compared in lower case, anything else is refused.
 */
export const BOOLEAN_WORDS = { yes: ['true', '1', 'yes', 'on'], no: ['false', '0', 'no', 'off'] } as const;
const ACCEPTED_BOOLEANS = BOOLEAN_WORDS.yes.map((w, i) => `${w}/${BOOLEAN_WORDS.no[i]}`).join(', ');

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** The primitives over one environment; each bad value becomes one entry of `problems`. */
export class EnvValues {
  constructor(
    readonly env: Env,
    readonly problems: string[],
  ) {}

  /** The trimmed value, or undefined when unset or empty. */
  optional(name: string): string | undefined {
    return this.env[name]?.trim() || undefined;
  }

  /** The trimmed value, else `fallback`; without a fallback the variable is required. */
  text(name: string, fallback?: string): string {
    const v = this.optional(name);
    if (v) return v;
    if (fallback !== undefined) return fallback;
    this.problems.push(`${name} is required`);
    return '';
  }

  /** A whole number within [min, max] (default: from 1 up). */
  intInRange(name: string, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
    return this.number(name, fallback, (n) => Number.isInteger(n) && n >= min && n <= max, `a whole number between ${min} and ${max}`);
  }

  /** Any number within [min, max]. */
  numberInRange(name: string, fallback: number, min: number, max: number): number {
    return this.number(name, fallback, (n) => Number.isFinite(n) && n >= min && n <= max, `a number between ${min} and ${max}`);
  }

  /** A number above 0 and at most 1. */
  share(name: string, fallback: number): number {
    return this.number(name, fallback, (n) => Number.isFinite(n) && n > 0 && n <= 1, 'a number above 0 and at most 1');
  }

  /** A number of days from 0 (which keeps forever) up to `max`. */
  daysOrKeep(name: string, fallback: number, max: number): number {
    const whole = (n: number) => Number.isInteger(n) && n >= 0 && n <= max;
    return this.number(name, fallback, whole, `a whole number of days between 0 (keep) and ${max}`);
  }

  /** A yes/no variable (BOOLEAN_WORDS); with an undefined fallback, undefined tells "not set" apart. */
  boolean(name: string, fallback: boolean): boolean;
  boolean(name: string, fallback: undefined): boolean | undefined;
  boolean(name: string, fallback: boolean | undefined): boolean | undefined {
    const raw = this.lower(name);
    if (!raw) return fallback;
    if ((BOOLEAN_WORDS.yes as readonly string[]).includes(raw)) return true;
    if ((BOOLEAN_WORDS.no as readonly string[]).includes(raw)) return false;
    this.problems.push(`${name} must be true or false, got "${raw}" (accepted, in any case: ${ACCEPTED_BOOLEANS})`);
    return fallback;
  }

  /** One of a few words, compared in lower case: `must be one of a, b, c`. */
  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.lower(name);
    if (!raw) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
    return fallback;
  }

  /** One of two words, compared in lower case: `must be a or b`. */
  either<T extends string>(name: string, first: T, second: T, fallback: T): T {
    const raw = this.lower(name) ?? fallback;
    if (raw === first || raw === second) return raw as T;
    this.problems.push(`${name} must be ${first} or ${second}, got "${raw}"`);
    return fallback;
  }

  /** A URL of one of `protocols` (`'http:'`); the value as given. */
  url(name: string, protocols: readonly string[], fallback?: string): string | undefined {
    const raw = this.optional(name) || fallback;
    if (!raw) return undefined;
    try {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) this.problems.push(`${name} must start with ${protocols.join(' or ')}, got "${raw}"`);
    } catch {
      this.problems.push(`${name} is not a valid URL: "${raw}"`);
    }
    return raw;
  }

  /** A directory that exists, as an absolute path. */
  directory(name: string): string | undefined {
    const raw = this.optional(name);
    if (!raw) return undefined;
    const dir = path.resolve(raw);
    let ok = false;
    try {
      ok = statSync(dir).isDirectory();
    } catch {
      ok = false;
    }
    if (!ok) this.problems.push(`${name} is not a readable directory: "${raw}"`);
    return dir;
  }

  /** The contents of the file the variable names, read now so a missing file is a start-up error. */
  fileContents(name: string): Buffer | undefined {
    const file = this.optional(name);
    if (!file) return undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      this.problems.push(`${name} is not a readable file: "${file}" (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
      return undefined;
    }
  }

  /** A secret given by reference (`env:NAME`, `file:PATH`, `{"env":"NAME"}`, `{"file":"PATH"}`), never by value. */
  secretRef(name: string): SecretRef | undefined {
    const text = this.optional(name);
    if (!text) return undefined;
    let ref: unknown;
    if (text.startsWith('{')) {
      try {
        ref = JSON.parse(text);
      } catch {
        ref = null;
      }
    } else {
      const m = /^(env|file):(.+)$/.exec(text);
      ref = m ? { [m[1]!]: m[2]!.trim() } : null;
    }
    const r = ref as Record<string, unknown> | null;
    if (r && Object.keys(r).length === 1 && typeof r.env === 'string' && ENV_NAME.test(r.env)) return { env: r.env };
    if (r && Object.keys(r).length === 1 && typeof r.file === 'string' && r.file) return { file: r.file };
    // A literal secret in the environment ends up in process listings and support dumps.
    this.problems.push(`${name} must reference the secret (env:VARIABLE or file:/path), not contain it`);
    return undefined;
  }

  private lower(name: string): string | undefined {
    return this.env[name]?.trim().toLowerCase() || undefined;
  }

  private number(name: string, fallback: number, ok: (n: number) => boolean, expected: string): number {
    const raw = this.optional(name);
    if (!raw) return fallback;
    const n = Number(raw);
    if (ok(n)) return n;
    this.problems.push(`${name} must be ${expected}, got "${raw}"`);
    return fallback;
  }
}

/** The primitives over `env`, recording each problem in `problems`. */
export function envValues(env: Env, problems: string[]): EnvValues {
  return new EnvValues(env, problems);
}
