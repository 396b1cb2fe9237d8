/**
 * The audit event types (`audit_log.event_type`) as one type, so that a misspelt one does not
 * compile wherever an audit row is written. Platform's own group is here; each feature adds its
 * group in its contract module (`declare module '../platform/audit-event-types'`, declaration
 * merging), so platform/ names every feature's events without importing a feature. The list of
 * every type at run time is src/audit-events.ts.
 */
import type { PLATFORM_AUDIT_EVENTS } from './contract';

type ValuesOf<T> = T[keyof T];

/** Each group of audit event types, by who declares it. */
export interface AuditEventGroups {
  platform: ValuesOf<typeof PLATFORM_AUDIT_EVENTS>;
}

export type AuditEventType = AuditEventGroups[keyof AuditEventGroups];
