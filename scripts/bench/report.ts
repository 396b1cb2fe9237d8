import { STEPS } from '../../src/platform/contract';
import type { CpuBreakdown } from './cpu-attribution';
import type { HistoryShape } from './history-shape';
import type { TwinResult } from './twin';
import { workerLines, workersJson, type WorkerFigures } from './report-workers';

export interface BenchReport {
  emails: number;
  source: string;
  /** What the database held before the load: nothing, or the lived-in seed's counts (scripts/bench/lived-in.ts). */
  installation: { kind: 'empty' | 'lived-in' } & Record<string, number | string>;
  /** processes: how many `email-rag worker` processes ran (startMs: until all had started). */
  worker: { mode: string; startMs: number; maxCachedWorkflows: number; heapGrowthPercent: number; processes: number };
  limits: Record<string, number>;
  singleMs: number;
  intake: { ms: number; perSecond: number; fromTrigger: number[]; fromFetch: number[] };
  twin?: TwinResult;
  /** arrivalsDuringDrain: arrival → awaiting approval (ms, sorted) of single mails put in over IDLE while the drain ran. */
  sends: { approvals: number; ms: number; perSecond: number; received: number; duplicates: number; arrivalsDuringDrain: number[] };
  /** Summed over the worker processes (peaks: of the sum). */
  rss: { idle: number; waiting: number; duringIntake: number; duringApproval: number };
  /** Summed over the worker processes. */
  cpu: { intake: CpuBreakdown; sends: CpuBreakdown };
  workers: WorkerFigures[];
  /** Queue rows whose activity no history tied to one of the workers. */
  unattributedActivities: number;
  /** CPU seconds of the Temporal dev server process in each phase. */
  serverCpu: { intake: number; sends: number };
  /** CPU seconds of MariaDB (machine-wide), Dovecot and the bench process in each phase. */
  othersCpu: Record<'intake' | 'sends', { embedder: number; mariadb: number; dovecot: number; bench: number }>;
  /** When the batch's workflows were started, relative to the trigger (ms). */
  starts: { firstMs: number; lastMs: number } | null;
  /** History of one batch email (to awaiting approval; `sent`: the same one after its reply left) and of one twin workflow. */
  /** `caseRun`: the case workflow of that email once its reply left (what the case feature costs the server per email). */
  histories: { email?: HistoryShape; sent?: HistoryShape; twin?: HistoryShape; caseRun?: HistoryShape; caseClock?: HistoryShape };
  /** Queue-row runtimes (ms) per step: the single email's, and the batch's. */
  stepsSingle: Record<string, number[]>;
  stepsBatch: Record<string, number[]>;
  trouble: Record<string, number>;
  /** The first retries and dead jobs, in their own words. */
  troubleExamples: string[];
}

const STEP_ORDER: string[] = [STEPS.fetch, STEPS.parse, STEPS.index, STEPS.draft, STEPS.decide, STEPS.send];

function stepTable(r: BenchReport): string[] {
  const single = ['fetch', 'parse', 'index', 'draft'].flatMap((step) => r.stepsSingle[step] ?? []).reduce((a, b) => a + b, 0);
  const lines = [
    `step runtimes (queue rows)  single email ms   batch p50 / p95 ms`,
    ...STEP_ORDER.filter((s) => r.stepsBatch[s] || r.stepsSingle[s]).map(
      (s) =>
        `  ${s.padEnd(26)}${String(r.stepsSingle[s]?.reduce((a, b) => a + b, 0) ?? '-').padStart(6)}` +
        `            ${pct(r.stepsBatch[s] ?? [], 50)} / ${pct(r.stepsBatch[s] ?? [], 95)}`,
    ),
    `single email: ${r.singleMs} ms ${r.source} -> awaiting, of which its activities ran ${single} ms (the rest: poll, task dispatch, workflow tasks, status writes)`,
  ];
  return lines;
}

export function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

/** What one approved reply added to its email's history: the events from the decision to the end. */
function sendTail(r: BenchReport): { events: number; workflowTasks: number; sequence: string[] } | null {
  const { email, sent } = r.histories;
  if (!email || !sent || sent.workflowId !== email.workflowId) return null;
  const sequence = sent.sequence.slice(email.events);
  return { events: sequence.length, workflowTasks: sequence.filter((e) => e === 'workflow_task_completed').length, sequence };
}

const shape = (h: HistoryShape) =>
  Object.entries(h.byType)
    .map(([t, n]) => `${t.toLowerCase()} ${n}`)
    .join(', ');
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const ms3 = (cpuSeconds: number, n: number) => `${((cpuSeconds / Math.max(1, n)) * 1000).toFixed(1)} ms`;

function cpuLines(label: string, c: CpuBreakdown, n: number): string[] {
  const steps = Object.entries(c.steps)
    .sort()
    .map(([s, v]) => `${s} ${ms3(v, n)}`)
    .join(', ');
  return [
    `CPU per email, ${label.padEnd(8)} total ${ms3(c.total, n)}: steps (main thread) ${steps || 'none'}; main thread outside steps ${ms3(c.mainOutsideSteps, n)}`,
    `                         Temporal orchestration ${ms3(c.orchestration, n)} (workflow threads ${ms3(c.byThread.workflow, n)}, SDK core ${ms3(c.byThread.core, n)}); other threads (V8 GC/compiler, libuv) ${ms3(c.byThread.helpers, n)}`,
  ];
}

/** The figures as text, or (json) one JSON object on stdout for tracking over time. */
export function printReport(r: BenchReport, format: 'text' | 'json'): void {
  const summary = {
    emails: r.emails,
    source: r.source,
    installation: r.installation,
    worker: r.worker,
    limits: r.limits,
    singleEmailMs: r.singleMs,
    intakeSeconds: r.intake.ms / 1000,
    emailsPerSecond: r.intake.perSecond,
    latencyFromTriggerMs: { p50: pct(r.intake.fromTrigger, 50), p95: pct(r.intake.fromTrigger, 95) },
    latencyFromFetchMs: { p50: pct(r.intake.fromFetch, 50), p95: pct(r.intake.fromFetch, 95) },
    twinWorkflowsPerSecond: r.twin?.perSecond ?? null,
    twinServerCpuMsPerWorkflow: r.twin?.serverCpuMsPerWorkflow ?? null,
    twinWorkerCpuMsPerWorkflow: r.twin?.workerCpuMsPerWorkflow ?? null,
    ratioToTwin: r.twin ? r.intake.perSecond / r.twin.perSecond : null,
    sendSeconds: r.sends.ms / 1000,
    sendsPerSecond: r.sends.perSecond,
    arrivalDuringDrainMs: {
      n: r.sends.arrivalsDuringDrain.length,
      p50: pct(r.sends.arrivalsDuringDrain, 50),
      p95: pct(r.sends.arrivalsDuringDrain, 95),
    },
    smtpReceived: r.sends.received,
    duplicates: r.sends.duplicates,
    workers: workersJson(r.workers, r.emails, r.sends.approvals),
    unattributedActivities: r.unattributedActivities,
    rssMB: Object.fromEntries(Object.entries(r.rss).map(([k, v]) => [k, Math.round(v / 1024 / 1024)])),
    cpuMsPerEmail: Object.fromEntries(
      Object.entries(r.cpu).map(([phase, c]) => [
        phase,
        {
          total: (c.total * 1000) / r.emails,
          steps: Object.fromEntries(Object.entries(c.steps).map(([s, v]) => [s, (v * 1000) / r.emails])),
          mainOutsideSteps: (c.mainOutsideSteps * 1000) / r.emails,
          orchestration: (c.orchestration * 1000) / r.emails,
          byThread: Object.fromEntries(Object.entries(c.byThread).map(([t, v]) => [t, (v * 1000) / r.emails])),
        },
      ]),
    ),
    serverCpuMsPerEmail: { intake: (r.serverCpu.intake * 1000) / r.emails, sends: (r.serverCpu.sends * 1000) / r.sends.approvals },
    othersCpuMsPerEmail: {
      intake: Object.fromEntries(Object.entries(r.othersCpu.intake).map(([k, v]) => [k, (v * 1000) / r.emails])),
      sends: Object.fromEntries(Object.entries(r.othersCpu.sends).map(([k, v]) => [k, (v * 1000) / r.sends.approvals])),
    },
    workflowStartsMs: r.starts,
    historyEvents: {
      email: r.histories.email
        ? { events: r.histories.email.events, byType: r.histories.email.byType, sequence: r.histories.email.sequence }
        : null,
      twin: r.histories.twin ? { events: r.histories.twin.events, byType: r.histories.twin.byType } : null,
      approvalToSent: sendTail(r),
      caseRun: r.histories.caseRun
        ? { events: r.histories.caseRun.events, activities: r.histories.caseRun.byType.ACTIVITY_TASK_SCHEDULED ?? 0 }
        : null,
    },
    stepRuntimesMs: Object.fromEntries(
      Object.entries(r.stepsBatch).map(([s, v]) => [s, { single: r.stepsSingle[s] ?? [], p50: pct(v, 50), p95: pct(v, 95) }]),
    ),
    auditTrouble: r.trouble,
    auditTroubleExamples: r.troubleExamples,
  };
  if (format === 'json') {
    console.log(JSON.stringify(summary, null, 2));
    return;
  }
  const lines = [
    '',
    `figure                                         value`,
    `installation                                   ${Object.entries(r.installation)
      .map(([k, v]) => (k === 'kind' ? v : `${k} ${v}`))
      .join(', ')}`,
    `worker${r.worker.processes > 1 ? `s (${r.worker.processes} processes)`.padEnd(41) : ' '.repeat(41)}` +
      `${r.worker.mode}, start ${sec(r.worker.startMs)}, WORKER_MAX_CACHED_WORKFLOWS=${r.worker.maxCachedWorkflows}, WORKER_HEAP_GROWTH_PERCENT=${r.worker.heapGrowthPercent}`,
    `limits                                         ${Object.entries(r.limits)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
    `one email, ${r.source} -> awaiting approval`.padEnd(47) + `${r.singleMs} ms`,
    `${r.emails} emails, ${r.source} -> all awaiting approval`.padEnd(47) +
      `${sec(r.intake.ms)} (${r.intake.perSecond.toFixed(1)} emails/s)`,
    `per email, trigger -> awaiting, p50 / p95      ${sec(summary.latencyFromTriggerMs.p50)} / ${sec(summary.latencyFromTriggerMs.p95)}`,
    `per email, fetch start -> awaiting, p50 / p95  ${sec(summary.latencyFromFetchMs.p50)} / ${sec(summary.latencyFromFetchMs.p95)}`,
    ...(r.twin
      ? [
          `bare twin, ${r.twin.workflows} x 5 no-op activities`.padEnd(47) +
            `${sec(r.twin.ms)} (${r.twin.perSecond.toFixed(1)} workflows/s)`,
          `ratio pipeline / twin                          ${(summary.ratioToTwin as number).toFixed(2)}`,
          `Temporal dev server CPU per twin workflow      ${(r.twin.serverCpuMsPerWorkflow ?? NaN).toFixed(1)} ms`,
          `twin worker + client CPU per workflow          ${(r.twin.workerCpuMsPerWorkflow ?? NaN).toFixed(1)} ms`,
        ]
      : []),
    r.sends.approvals === 0
      ? `approvals                                      skipped (--no-approve)`
      : `${r.sends.approvals} approvals -> all sent`.padEnd(47) + `${sec(r.sends.ms)} (${r.sends.perSecond.toFixed(1)} sends/s)`,
    `SMTP sink: messages received / duplicates      ${r.sends.received} / ${r.sends.duplicates}`,
    ...(r.sends.arrivalsDuringDrain.length > 0
      ? [
          `arrival -> awaiting during the drain, p50 / p95  ${sec(pct(r.sends.arrivalsDuringDrain, 50))} / ${sec(pct(r.sends.arrivalsDuringDrain, 95))} over IDLE (${r.sends.arrivalsDuringDrain.length} mails, one every 1-3 s)`,
        ]
      : []),
    `worker RSS${r.worker.processes > 1 ? ' (sum)' : ''} idle / ${r.emails + 1} waiting / peak intake / peak approval  ` +
      `${mb(r.rss.idle)} / ${mb(r.rss.waiting)} / ${mb(r.rss.duringIntake)} / ${mb(r.rss.duringApproval)}`,
    ...cpuLines('intake', r.cpu.intake, r.emails),
    ...cpuLines('send', r.cpu.sends, r.sends.approvals),
    ...workerLines(r.workers, r.emails, r.sends.approvals, r.unattributedActivities),
    `Temporal dev server CPU per email              intake ${ms3(r.serverCpu.intake, r.emails)}, send ${ms3(r.serverCpu.sends, r.sends.approvals)}`,
    ...(['intake', 'sends'] as const).map((phase) => {
      const o = r.othersCpu[phase];
      const n = phase === 'intake' ? r.emails : r.sends.approvals;
      return (
        `other CPU per email during ${phase === 'intake' ? 'intake' : 'sends '}              ` +
        `embedder ${ms3(o.embedder, n)}, MariaDB ${ms3(o.mariadb, n)} (machine-wide), Dovecot ${ms3(o.dovecot, n)}, bench process ${ms3(o.bench, n)}`
      );
    }),
    ...(r.starts ? [`batch workflows started, after the trigger      first ${sec(r.starts.firstMs)}, last ${sec(r.starts.lastMs)}`] : []),
    ...(['email', 'twin'] as const).flatMap((k) => {
      const h = r.histories[k];
      return h
        ? [`history events, one ${k === 'email' ? 'email (awaiting approval)' : 'twin workflow'}`.padEnd(47) + `${h.events}: ${shape(h)}`]
        : [];
    }),
    ...(summary.historyEvents.approvalToSent
      ? [
          `history events, one email (approval -> sent)`.padEnd(47) +
            `${summary.historyEvents.approvalToSent.events}, ${summary.historyEvents.approvalToSent.workflowTasks} workflow tasks: ` +
            summary.historyEvents.approvalToSent.sequence.join(' '),
        ]
      : []),
    r.histories.caseRun
      ? `history events, its case workflow (after sent)`.padEnd(47) +
        `${r.histories.caseRun.events}: ${r.histories.caseRun.sequence.join(' ')}`
      : `history events, its case workflow`.padEnd(47) + 'none (no automatic send, no summary: the case clock keeps its deadline)',
    ...(r.histories.caseClock
      ? [`history events, the case clock (whole run)`.padEnd(47) + `${r.histories.caseClock.events} for all cases`]
      : []),
    ...stepTable(r),
    `audit rows other than status changes           ${
      Object.entries(r.trouble)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ') || 'none'
    }`,
    ...r.troubleExamples.map((t) => `  ${t}`),
  ];
  console.log(lines.join('\n'));
}
