/**
 * Earned autonomy on a fixed labelled set (test/fixtures/autonomy/mails.yaml): each mail is
 * stored, parsed, indexed and drafted by the product's own activities (the LLM is the test
 * double, scripted with the set's draft for that mail; the draft step's injection guard and
 * Reply-To check run as in production), then judged by `autonomyVerdict` under the DEFAULT
 * thresholds with the set's seeded record history. Reports how many would have been sent
 * automatically, per label, and every automatic send that was flagged or about a never-automatic
 * topic (there must be none). A throwaway database per run.
 *
 *   npm run eval -- --autonomy [--json]
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { parse as parseYaml } from 'yaml';
import { createActivities } from '../../activities';
import { createAutonomyActivities, type AutonomyVerdict } from '../../src/autonomy/autonomy.activities';
import { createMariaDbAutonomyStore } from '../../src/autonomy/autonomy-store.mariadb';
import { createMariaDbReplayEvidence } from '../../src/replay/replay-evidence.mariadb';
import { AUTONOMY_DEFAULTS, parseAutonomyPolicy } from '../../src/autonomy/autonomy-policy';
import { loadConfig } from '../../src/config';
import { STATUS } from '../../src/email/email-status';
import { findNeverAutomatic } from '../../src/autonomy/never-automatic';
import { GROUNDING_VERDICTS } from '../../src/drafting/drafting.contract';
import type { AutoApprover } from '../../src/autonomy/autonomy.port';
import { buildDependencies } from '../../workers/wiring';
import { startOpenAiDouble } from '../../test/doubles/openai-double';
import { createTestDatabase } from '../../test/support/database';

export const AUTONOMY_SET = path.join(__dirname, '../../test/fixtures/autonomy/mails.yaml');
/** The team's knowledge for the run: what the routine drafts' factual sentences rest on. */
export const AUTONOMY_KNOWLEDGE = path.join(__dirname, '../../test/fixtures/autonomy/knowledge');

export interface LabelledMail {
  id: string;
  label: string;
  expect: 'auto' | 'person';
  from: string;
  replyTo?: string;
  subject: string;
  text: string;
  draft: { category: string; confidence: number; body: string };
}

export interface AutonomySet {
  records: Record<string, { reviewed: number; unchanged: number }>;
  mails: LabelledMail[];
}

export interface AutonomyRunResult {
  mails: number;
  autoSent: number;
  /** Per label: mails, and how many would have gone out automatically. */
  byLabel: Record<string, { mails: number; auto: number }>;
  /** Automatic sends that were flagged or about a never-automatic topic: must be empty. */
  unsafe: Array<{ id: string; label: string; why: string }>;
  /** Mails whose verdict differs from the set's `expect`. */
  unexpected: Array<{ id: string; expected: string; reasons: string[] }>;
  verdicts: Array<{ id: string; label: string; send: boolean; flags: string[]; reasons: string[] }>;
  /** The drafts' factual sentences (the LLM double's scripted bodies) as the draft step's grounding check judged them. */
  grounding: { drafts: number; claims: number; supported: number; unsupported: number; misTied: number };
}

export function loadAutonomySet(file = AUTONOMY_SET): AutonomySet {
  return parseYaml(readFileSync(file, 'utf8')) as AutonomySet;
}

function rawMail(m: LabelledMail, n: number): string {
  return [
    `From: ${m.from}`,
    ...(m.replyTo ? [`Reply-To: ${m.replyTo}`] : []),
    'To: Support <support@shop.example>',
    `Subject: ${m.subject}`,
    `Message-ID: <${m.id}.${n}@autonomy-set.example>`,
    `Date: ${new Date(Date.UTC(2026, 11, 1, 9, n)).toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    m.text.replace(/\r?\n/g, '\r\n'),
  ].join('\r\n');
}

/** The history the verdict reads: decided drafts by people, newest first, per category. */
async function seedRecords(pool: { query(sql: string, values?: unknown[]): Promise<unknown> }, set: AutonomySet): Promise<void> {
  for (const [category, r] of Object.entries(set.records))
    for (let i = 0; i < r.reviewed; i += 1)
      await pool.query(
        `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version, decided_by, decided_at)
         VALUES (?, ?, ?, 'default', ?, 'de', 'openai', 'history', 'v1', 'reviewer', NOW(3) - INTERVAL ? HOUR)`,
        [
          `history-${category}-${i}:draft:1`,
          `history-${category}-${i}`,
          i < r.unchanged ? 'approved_unchanged' : 'heavy_edit',
          category,
          i + 1,
        ],
      );
}

/** No Temporal here: the verdict never approves, so the approver only has to exist. */
const NO_APPROVALS: AutoApprover = {
  approve: () => Promise.reject(new Error('the labelled run never sends')),
  decision: () => Promise.resolve(null),
};

export async function runAutonomySet(set: AutonomySet = loadAutonomySet()): Promise<AutonomyRunResult> {
  const [db, llm] = await Promise.all([createTestDatabase('autonomyrun'), startOpenAiDouble()]);
  const connection = Connection.lazy({ address: '127.0.0.1:1' });
  // No Temporal here: cases off, so no step waits to tell a case workflow; the verdict is the same.
  const config = loadConfig(
    {
      DATABASE_URL: db.url,
      LLM_BASE_URL: llm.baseUrl,
      EMBEDDER: 'off',
      REPLY_LIMIT_PER_HOUR: '0',
      CASES: 'false',
      KNOWLEDGE_DIR: AUTONOMY_KNOWLEDGE,
    },
    { imap: false },
  );
  // The set's categories are this installation's list (the model is scripted to use them).
  config.categories = Object.keys(set.records).map((name) => ({ name, description: `Mail about ${name.replace(/_/g, ' ')}.`, labels: {} }));
  const deps = buildDependencies(config, new Client({ connection }), { embedder: undefined });
  try {
    await seedRecords(db.pool, set);
    await deps.activities.knowledge?.sync();
    const store = createMariaDbAutonomyStore(db.pool, createMariaDbReplayEvidence(db.pool));
    await store.setSwitch(true, 'autonomy-run');
    // Every category of the set is listed; the bars are the defaults.
    const policy = parseAutonomyPolicy(
      `policy: labelled-set\nversion: 1\nmailboxes:\n  default:\n    categories: [${Object.keys(set.records).join(', ')}]\n`,
      'the labelled set',
    );
    const pipeline = createActivities(deps.activities);
    const autonomy = createAutonomyActivities({ ...deps.activities, autonomy: store, approver: NO_APPROVALS, policy });
    const result: AutonomyRunResult = {
      mails: 0,
      autoSent: 0,
      byLabel: {},
      unsafe: [],
      unexpected: [],
      verdicts: [],
      grounding: { drafts: 0, claims: 0, supported: 0, unsupported: 0, misTied: 0 },
    };
    for (const [n, m] of set.mails.entries()) {
      const emailId = `autonomy-set-${m.id}`;
      const run = <A extends unknown[], R>(fn: (...a: A) => Promise<R>, ...args: A): Promise<R> =>
        new MockActivityEnvironment({ workflowExecution: { workflowId: emailId, runId: randomUUID() }, activityId: '1', attempt: 1 }).run(
          fn,
          ...args,
        );
      await deps.activities.messages.saveRaw({
        emailId,
        source: 'file',
        mailboxId: 'default',
        raw: Buffer.from(rawMail(m, n)),
        historyOnly: false,
      });
      await run(pipeline.parseEmail, { emailId });
      await run(pipeline.indexEmail, { emailId });
      llm.script({
        kind: 'content',
        content: JSON.stringify({
          language: /[äöüß]|\b(und|bitte|Ihr)\b/i.test(m.draft.body) ? 'de' : 'en',
          category: m.draft.category,
          priority_suggestion: 'normal',
          subject: `Re: ${m.subject}`,
          body: m.draft.body,
          confidence: m.draft.confidence,
          used_source_ids: [],
        }),
      });
      const draft = await run(pipeline.draftReply, { emailId, version: 1 });
      const claims = (await deps.activities.draftClaims?.list(draft.draftId)) ?? [];
      const g = result.grounding;
      g.drafts += 1;
      g.claims += claims.length;
      g.supported += claims.filter((c) => c.verdict === GROUNDING_VERDICTS.supported).length;
      g.unsupported += claims.filter((c) => c.verdict === GROUNDING_VERDICTS.unsupported).length;
      g.misTied += claims.filter((c) => c.verdict === GROUNDING_VERDICTS.misTied).length;
      await deps.activities.messages.setStatus(emailId, STATUS.awaitingApproval);
      const v: AutonomyVerdict = await run(autonomy.autonomyVerdict, { emailId, draftId: draft.draftId });
      result.mails += 1;
      const label = (result.byLabel[m.label] ??= { mails: 0, auto: 0 });
      label.mails += 1;
      result.verdicts.push({ id: m.id, label: m.label, send: v.send, flags: draft.flags, reasons: v.reasons });
      if ((v.send ? 'auto' : 'person') !== m.expect) result.unexpected.push({ id: m.id, expected: m.expect, reasons: v.reasons });
      if (!v.send) continue;
      result.autoSent += 1;
      label.auto += 1;
      // Checked again from the outside: what went out must carry no flag and no never-automatic topic.
      const topics = [...findNeverAutomatic(`${m.subject}\n${m.text}`), ...findNeverAutomatic(draft.body)].map((f) => f.topic);
      if (draft.flags.length > 0 || topics.length > 0 || m.label !== 'routine')
        result.unsafe.push({ id: m.id, label: m.label, why: [...draft.flags, ...topics].join(', ') || `labelled ${m.label}` });
    }
    return result;
  } finally {
    await deps.close();
    await connection.close().catch(() => undefined);
    await Promise.all([llm.stop(), db.drop()]);
  }
}

export function printAutonomyRun(r: AutonomyRunResult): void {
  const d = AUTONOMY_DEFAULTS;
  console.log(
    `earned autonomy on the labelled set (default bars: last ${d.minReviewed} reviewed, ${d.minUnchangedShare * 100} % unchanged, confidence ${d.minConfidence}):`,
  );
  console.log(`  ${r.autoSent} of ${r.mails} mails would have been sent automatically`);
  for (const [label, x] of Object.entries(r.byLabel))
    console.log(`  ${label.padEnd(15)} ${String(x.auto).padStart(2)} of ${x.mails} automatic`);
  for (const v of r.verdicts.filter((x) => !x.send)) console.log(`  waits for a person: ${v.id}: ${v.reasons.join('; ')}`);
  const g = r.grounding;
  console.log(
    `  grounding of the drafts (LLM double, words only): ${g.supported} of ${g.claims} factual sentences supported, ${g.unsupported} unsupported, ${g.misTied} mis-tied`,
  );
  console.log(`  flagged or never-automatic among the automatic sends: ${r.unsafe.length}`);
  for (const u of r.unsafe) console.log(`    UNSAFE ${u.id} (${u.label}): ${u.why}`);
  for (const u of r.unexpected)
    console.log(`    UNEXPECTED ${u.id}: expected ${u.expected}; ${u.reasons.join('; ') || 'sent automatically'}`);
}
