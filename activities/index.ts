import { autonomyOff, createAutonomyActivities } from '../src/autonomy';
import {
  createCaseActivities,
  createCaseDeadlineActivities,
  createCaseSummaryActivities,
  createCaseRoutingActivities,
  createCaseTurnActivities,
  createCaseClockActivities,
  createCaseDesk,
  createEmailCase,
  CASE_AUDIT_EVENTS,
} from '../src/cases';
import { errorMessage } from '../src/platform/errors';
import { createCleanupActivities } from '../src/operations';
import { createRetentionActivities } from '../src/privacy';
import type { ActivityDeps } from './activity-deps';
import { createEmailActivities } from '../src/email/index.adapters';
import { createWatchActivities } from '../src/mailboxes';
import { createReplayActivities } from '../src/replay';

/** The case activities: the case workflow's and the clock's, and the parts of the email steps' desk. */
function createCasesActivities(deps: ActivityDeps) {
  return {
    ...createCaseActivities(deps),
    ...createCaseSummaryActivities({ ...deps, summaryTimeoutMs: deps.settings.summaryTimeoutMs }),
    ...createCaseRoutingActivities(deps.caseRouting),
    // Case deadlines: planCaseDeadline, remindCase, escalateCase (the case clock's acts).
    ...createCaseDeadlineActivities(deps),
    ...createCaseClockActivities(deps),
    ...(deps.autonomy
      ? createAutonomyActivities({
          ...deps.autonomy,
          autonomy: deps.autonomy.store,
          messages: deps.messages,
          drafts: deps.drafts,
          attachments: deps.attachments,
          audit: deps.audit,
          draftClaims: deps.draftClaims,
        })
      : autonomyOff()),
  };
}

/** Every activity of the pipeline, built from its dependencies. */
export function createActivities(given: ActivityDeps) {
  const cases = createCasesActivities(given);
  // The desk joins the very object the steps read (not a copy): ports swapped on it later, as tests
  // do with their recording doubles, reach every step.
  const deps: ActivityDeps = given;
  if (given.case) {
    deps.caseDesk = caseDeskOf(given, cases);
    deps.emailCase = createEmailCase(deps);
  }
  return {
    ...createEmailActivities(deps),
    ...createCleanupActivities(deps),
    // The retention purge (RETENTION_*): purgeExpired, batched and resumable.
    ...createRetentionActivities(deps.retention),
    ...createWatchActivities(deps),
    // Replays of a team's history: their own tables, never an email of the pipeline.
    ...createReplayActivities(deps.replay),
    ...cases,
    // A case workflow's wake-up in one local activity: the parts above, one after the other.
    ...createCaseTurnActivities({ ...cases, summaryTimeoutMs: deps.settings.summaryTimeoutMs }),
  };
}

/** The email steps' side of cases (src/cases/case-desk.ts), made of the case activities above. */
function caseDeskOf(deps: ActivityDeps, cases: ReturnType<typeof createCasesActivities>) {
  // Ports read on use, not captured: tests swap them for recording doubles after construction.
  return createCaseDesk({
    routeCase: cases.routeCase,
    autonomyVerdict: cases.autonomyVerdict,
    summaryDue: cases.summaryDue,
    ...(deps.caseDeadlines ? { planCaseDeadline: cases.planCaseDeadline } : {}),
    clock: {
      lowerNextWake: (at) => deps.caseDeadlines?.clock.lowerNextWake(at) ?? Promise.resolve(false),
      wake: () => deps.case?.caseSignals.wakeClock() ?? Promise.resolve(),
    },
    wakeFailed: (caseId, err) =>
      deps.audit.record({
        emailId: null,
        correlationId: caseId,
        eventType: CASE_AUDIT_EVENTS.signalFailed,
        errorClass: 'dependency',
        message: `the case clock was not woken for ${caseId}: ${errorMessage(err)}; it finds the case on its next round`,
      }),
  });
}

export type Activities = ReturnType<typeof createActivities>;
export type { ActivityDeps, CaseDeadlinePorts, MailSettings } from './activity-deps';
