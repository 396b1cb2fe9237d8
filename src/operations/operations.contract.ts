/** Audit event types of operations (`audit_log.event_type`), for operators' filters. */
export const OPERATIONS_AUDIT_EVENTS = {
  /** The cleanup reset a job that was stuck. */
  stuckReset: 'stuck_reset',
  /** A dead letter was started again (`email-rag dlq requeue`). */
  dlqRequeued: 'dlq_requeued',
} as const;
export type OperationsAuditEvent = (typeof OPERATIONS_AUDIT_EVENTS)[keyof typeof OPERATIONS_AUDIT_EVENTS];

/**
 * Every note an intake pause writes on a schedule starts with this (it is kept in Temporal):
 * `intake resume` lifts only the pauses it made, and `schedules install` leaves such a pause and
 * its note as they are (a restored snapshot, or a backup under way, keeps its intake paused).
 */
export const INTAKE_PAUSE_NOTE = 'email-rag intake pause';

/**
 * The parts `email-rag doctor` checks (the JSON's `check`); a mailbox part also names its mailbox
 * (`target`). In the order the table prints them.
 */
export const DOCTOR_CHECKS = {
  database: 'database',
  migrations: 'migrations',
  temporalNamespace: 'temporal namespace',
  searchAttributes: 'search attributes',
  schedules: 'schedules',
  mailbox: 'mailbox',
  embedder: 'embedder',
  llm: 'llm',
  knowledge: 'knowledge folder',
  payloadEncryption: 'payload encryption',
  codecServer: 'codec server',
  inboxSignIn: 'inbox sign-in',
} as const;
export type DoctorCheckName = (typeof DOCTOR_CHECKS)[keyof typeof DOCTOR_CHECKS];

/*
 * The health endpoints every long-running process serves (review inbox, codec server, worker), as
 * container health checks, Kubernetes probes and Prometheus use them: their paths, the worker's
 * default port, and the words of a readiness body (docs/operating.md "Health and readiness").
 */

/** Paths on the inbox's and the codec server's own port, and on the worker's HEALTH_PORT. */
export const HEALTH_PATHS = {
  /** The process answers; no I/O. For liveness probes and Docker health checks. */
  live: '/livez',
  /** Its dependencies answer within a short timeout: 200, or 503 naming each one's state. */
  ready: '/readyz',
  /** Prometheus text (process figures); the worker's stay on its METRICS_PORT instead. */
  metrics: '/metrics',
} as const;

/** The liveness paths of earlier releases, kept as aliases of `/livez`. */
export const LEGACY_LIVE_PATHS = {
  inbox: '/healthz',
  codecServer: '/health',
} as const;

/** HEALTH_PORT of the containers' worker (unset outside containers: no health server). */
export const WORKER_HEALTH_PORT = 9465;

/** How long one dependency may take to answer a readiness check before it counts as failing. */
export const READINESS_TIMEOUT_MS = 2_000;

/** What a readiness check asks about (a body's `checks[].dependency`). */
export const HEALTH_DEPENDENCIES = {
  database: 'database',
  temporal: 'temporal',
  /** The worker's own Temporal Workers (SDK state RUNNING). */
  worker: 'worker',
  /** One folder of one enabled mailbox: its last successful poll (`target`: `mailbox/folder`). */
  mailbox: 'mailbox',
  /** The codec server's payload keys: a test payload encoded and decoded again. */
  codec: 'codec',
} as const;
export type HealthDependency = (typeof HEALTH_DEPENDENCIES)[keyof typeof HEALTH_DEPENDENCIES];

/** A check's `state`: only `ok` and `paused` are ready. */
export const HEALTH_STATES = {
  ok: 'ok',
  /** The dependency did not answer, answered with an error, or (a mailbox) its polls fail. */
  failing: 'failing',
  /** A mailbox not polled successfully since the worker started, within its bound. */
  starting: 'starting',
  /** A mailbox whose last successful poll is older than its bound. */
  stale: 'stale',
  /** A mailbox whose poll schedule is paused (`email-rag intake pause`): nothing is expected of it. */
  paused: 'paused',
  /** The worker is shutting down on a signal (live, not ready). */
  stopping: 'stopping',
} as const;
export type HealthState = (typeof HEALTH_STATES)[keyof typeof HEALTH_STATES];

/** The states a readiness check passes with. */
export const READY_STATES: readonly HealthState[] = [HEALTH_STATES.ok, HEALTH_STATES.paused];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    operations: (typeof OPERATIONS_AUDIT_EVENTS)[keyof typeof OPERATIONS_AUDIT_EVENTS];
  }
}
