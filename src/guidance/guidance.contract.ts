/**
 * Guidance (docs/guidance.md): the names it shares with operators and the review inbox. Imports
 * nothing, so any feature may name them.
 */
export const GUIDANCE_AUDIT_EVENTS = {
  /** A new version of a scope's guidance was saved; details name the scope, the version and its id. */
  changed: 'guidance_changed',
} as const;
export type GuidanceAuditEvent = (typeof GUIDANCE_AUDIT_EVENTS)[keyof typeof GUIDANCE_AUDIT_EVENTS];

/** The scope of the installation-wide default, as the CLI and the inbox's form write it. */
export const DEFAULT_SCOPE = 'default';

/**
 * At most this many characters of guidance enter one draft's prompt (all scopes together), and
 * one version may hold at most this many: guidance is a page of house rules, not a manual, and
 * every character of it is paid for on every draft.
 */
export const GUIDANCE_MAX_CHARS = 2_000;

/** What a draft written under no guidance shows in the quality figures' guidance column. */
export const NO_GUIDANCE = 'none';

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    guidance: (typeof GUIDANCE_AUDIT_EVENTS)[keyof typeof GUIDANCE_AUDIT_EVENTS];
  }
}
