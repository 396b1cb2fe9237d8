/**
 * Status words, step names, failure codes and audit event types are named once (the email's in
 * src/email/email-status.ts, the job queue's in src/platform/job-queue.ts, the shared names in
 * src/platform/contract.ts, and each feature's in its `src/<feature>/<feature>.contract.ts`)
 * and used by name everywhere else: a renamed status, code or event is then a type error, not a silent
 * mismatch between the code, the SQL and what operators filter on.
 *
 * The product code is parsed (TypeScript's parser, so comments do not count) and every string
 * literal and template text is checked:
 * - a status word, failure code or audit event type as a whole literal (`'manual_review'`,
 *   `'MESSAGE_GONE'`, `'reply_sent'`);
 * - a status word, failure code or audit event type quoted inside text (`status = 'sent'` in SQL,
 *   `EmailStatus="failed"` in a visibility query, `event_type = 'status_changed'`). SQL counts like any other code: it names a status as
 *   `'${STATUS.sent}'`, and a status set through `sqlList(NEEDS_PERSON_STATUSES)`. Only the
 *   migrations (plain .sql files, not scanned) spell the words out;
 * - a code literal given to an error class or ApplicationFailure (catches a code not declared yet);
 * - a step name compared with, or assigned to, something called step; an audit event type that is also
 *   a word of another vocabulary (`too_large`, `already_sent`, `feedback_report`, `send_in_doubt`) where the
 *   code names an event (`eventType: 'too_large'`).
 * Templates (.njk) are not scanned: they get the values from the code.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { FAILURE_TYPES, STEPS } from '../../src/platform/contract';
import { WAITING_KINDS } from '../../src/email/email-status';
import { DRAFT_STATUS } from '../../src/drafting/drafting.contract';
import { QUEUE_STATUS } from '../../src/platform/job-queue';
import { SEND_OUTCOME, SEND_STATUS, START_STATUS, STATUS } from '../../src/email/email-status';
import { TRIAGE_CLASSES } from '../../src/triage/triage-classes';
import { AUDIT_EVENT_TYPES } from '../../src/audit-events';

const ROOT = join(__dirname, '..', '..');
const PRODUCT_DIRS = ['src', 'activities', 'workers', 'workflows'];

/** Where the words are defined: the email's status words, the job queue's, platform's contract, each feature's contract module, and the union of the audit events. */
const CONTRACT_FILES = ['src/email/email-status.ts', 'src/platform/job-queue.ts', 'src/platform/contract.ts', 'src/audit-events.ts'];
const isContractFile = (file: string): boolean => CONTRACT_FILES.includes(file) || /^src\/([a-z-]+)\/\1\.contract\.ts$/.test(file);

/** The same word in another vocabulary: `file` and the literal, with why it is not a status. */
const ALLOWED: ReadonlyArray<{ file: string; literal: string; why: string }> = [
  { file: 'src/retrieval/thread-graph.arango.ts', literal: 'sent', why: 'the name of an ArangoDB edge collection (sender → email)' },
  { file: 'src/retrieval/thread-graph.arango.ts', literal: 'failed', why: 'fallback text of an ArangoDB error message' },
  { file: 'src/review-inbox/i18n.ts', literal: 'rejected', why: 'the English label of the draft outcome on the operations page' },
];

const STATUS_WORDS = new Set<string>([
  ...Object.values(STATUS),
  ...Object.values(QUEUE_STATUS),
  ...Object.values(SEND_STATUS),
  ...Object.values(DRAFT_STATUS),
  START_STATUS,
]);
const FAILURE_CODES = new Set<string>(Object.values(FAILURE_TYPES));
/**
 * Audit event types that are also words of another vocabulary: `too_large` a status reason,
 * `already_sent` a send outcome, `feedback_report` a triage class, `send_in_doubt` a waiting kind.
 * They are findings only where the code names an event (CONTEXTUAL); every other audit event type
 * is a finding wherever it is spelt out.
 */
const OTHER_VOCABULARIES = new Set<string>([
  ...STATUS_WORDS,
  ...FAILURE_CODES,
  ...Object.values(STEPS),
  ...Object.values(WAITING_KINDS),
  ...Object.values(SEND_OUTCOME),
  ...TRIAGE_CLASSES,
  'too_large',
]);
const AUDIT_EVENTS = new Set<string>([...AUDIT_EVENT_TYPES].filter((event) => !OTHER_VOCABULARIES.has(event)));
const SHARED_AUDIT_EVENTS = new Set<string>([...AUDIT_EVENT_TYPES].filter((event) => OTHER_VOCABULARIES.has(event)));
const HTTP_FAILURE = /^[A-Z]+_HTTP_\d+$/;
/**
 * Words of a vocabulary that shares them with others (`send` is a step, a profile and a verb;
 * `send_in_doubt` a waiting kind and an audit event): checked only where the code names that
 * vocabulary (a property, comparison or switch whose other side mentions `context`).
 */
const CONTEXTUAL: ReadonlyArray<{ words: ReadonlySet<string>; context: RegExp; what: string }> = [
  { words: new Set(Object.values(STEPS)), context: /step/i, what: 'step name' },
  { words: new Set(Object.values(WAITING_KINDS)), context: /kind/i, what: 'waiting kind' },
  { words: SHARED_AUDIT_EVENTS, context: /event/i, what: 'audit event type' },
];
const CODE_LIKE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;
/** A regular expression that starts with the prefix of failure codes (`/^LLM_/`, `/QDRANT_/`). */
const codePattern = (regex: string): boolean => {
  const prefix = /^\/\^?([A-Z][A-Z0-9]*_)/.exec(regex)?.[1];
  return prefix !== undefined && [...FAILURE_CODES].some((c) => c.startsWith(prefix));
};

function productFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...productFiles(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

interface Finding {
  file: string;
  line: number;
  literal: string;
  why: string;
}

/** The findings of one source text (exported shape kept simple so the test can feed it a planted literal). */
function scan(file: string, text: string): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const findings: Finding[] = [];
  const allowed = (literal: string) => ALLOWED.some((a) => a.file === file && a.literal === literal);
  const report = (node: ts.Node, literal: string, why: string) => {
    if (allowed(literal)) return;
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    findings.push({ file, line, literal, why });
  };
  const isWord = (s: string) => STATUS_WORDS.has(s) || FAILURE_CODES.has(s) || HTTP_FAILURE.test(s) || AUDIT_EVENTS.has(s);
  const kindOf = (s: string) => (STATUS_WORDS.has(s) ? 'status word' : AUDIT_EVENTS.has(s) ? 'audit event type' : 'failure code');

  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) {
      const value = node.text;
      if (isWord(value) && !ts.isTemplateLiteralToken(node)) {
        report(node, value, kindOf(value));
      } else {
        // Quoted inside text: SQL (`status = 'sent'`), a visibility query (`EmailStatus="failed"`).
        for (const m of value.matchAll(/(['"])([A-Za-z0-9_]+)\1/g)) {
          if (isWord(m[2]!)) report(node, m[2]!, `${kindOf(m[2]!)} quoted in text`);
        }
      }
      for (const v of CONTEXTUAL) {
        if (ts.isStringLiteral(node) && !isWord(value) && v.words.has(value) && inContext(node, v.context)) report(node, value, v.what);
      }
    }
    // Deciding by a pattern over codes or messages (`/^LLM_/`): use a helper such as isLlmFailure.
    if (ts.isRegularExpressionLiteral(node) && codePattern(node.text)) {
      report(node, node.text, 'failure codes matched by a pattern: use FAILURE_TYPES and its helpers (isLlmFailure)');
    }
    // A new code given as a literal to an error class or ApplicationFailure.
    if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && /Error$|ApplicationFailure/.test(node.expression.getText(source))) {
      for (const arg of (node.arguments ?? []).slice(1)) {
        if (ts.isStringLiteral(arg) && CODE_LIKE.test(arg.text) && !isWord(arg.text))
          report(arg, arg.text, 'failure code not in FAILURE_TYPES');
      }
    }
    ts.forEachChild(node, visit);
  };

  /** `step: 'send'`, `x.step === 'send'`, `failedStepOf(err) === 'parse'`, `case 'send':` in a switch on a step, `kind: 'approval'`. */
  const inContext = (literal: ts.StringLiteral, context: RegExp): boolean => {
    // `kind: waiting ? 'manual_review' : 'approval'` names the kind as much as `kind: 'approval'`.
    let node: ts.Node = literal;
    while (ts.isConditionalExpression(node.parent) || ts.isParenthesizedExpression(node.parent)) node = node.parent;
    const parent = node.parent;
    if (ts.isPropertyAssignment(parent) && parent.initializer === node) return context.test(parent.name.getText(source));
    if (ts.isPropertySignature(parent.parent) && ts.isLiteralTypeNode(parent)) return context.test(parent.parent.name.getText(source));
    if (ts.isBinaryExpression(parent)) {
      const other = parent.left === node ? parent.right : parent.left;
      return context.test(other.getText(source));
    }
    if (ts.isCaseClause(parent)) return context.test(parent.parent.parent.expression.getText(source));
    return false;
  };

  visit(source);
  return findings;
}

function scanProduct(): Finding[] {
  const findings: Finding[] = [];
  for (const dir of PRODUCT_DIRS) {
    for (const path of productFiles(join(ROOT, dir))) {
      const file = relative(ROOT, path).split('\\').join('/');
      if (isContractFile(file)) continue;
      findings.push(...scan(file, readFileSync(path, 'utf8')));
    }
  }
  return findings;
}

const listed = (findings: Finding[]) => findings.map((f) => `${f.file}:${f.line}: '${f.literal}' (${f.why})`).join('\n');

test('status words, step names, failure codes and audit event types are used by name, not spelled out', () => {
  const findings = scanProduct();
  assert.equal(
    findings.length,
    0,
    `use the constants of src/email/email-status.ts, src/platform/job-queue.ts, src/platform/contract.ts and the contract modules (STATUS, QUEUE_STATUS, SEND_STATUS, DRAFT_STATUS, STEPS, FAILURE_TYPES, ...) and the audit events of src/<feature>/<feature>.contract.ts (EMAIL_AUDIT_EVENTS, CASE_AUDIT_EVENTS, ...):\n${listed(findings)}`,
  );
});

test('the scan finds planted literals (it is not vacuous)', () => {
  const planted = [
    "if (email.status === 'awaiting_approval') return;",
    "throw new PermanentError('gone', 'MESSAGE_GONE');",
    "throw new TransientError('new kind', 'SOMETHING_NEW');",
    "const sql = `SELECT id FROM emails WHERE status = 'manual_review'`;",
    'const q = `EmailStatus="failed" AND x`;',
    "if (failedStepOf(err) === 'parse') stop();",
    "const plan = { step: 'send', profile: 'send' };",
    "const code = 'LLM_HTTP_401';",
    "if (w.kind === 'send_round') return;",
    "type W = { kind: 'approval'; draftId: string };",
    "const w = { kind: manual ? 'manual_review' : 'approval' };",
    'if (/^LLM_/.test(failureText(err))) stop();',
    "await deps.audit.record({ emailId, correlationId: cid, eventType: 'reply_sent', message });",
    "const n = `SELECT COUNT(*) FROM audit_log WHERE event_type IN ('retry_scheduled', 'job_dead')`;",
    "return run.stop(STATUS.failed, 'send_failed', err);",
    "audit({ eventType: 'send_in_doubt' });",
    "const hold = { eventType: big ? 'too_large' : 'draft_held' };",
  ].join('\n');
  const found = scan('src/platform/planted.ts', planted);
  assert.deepEqual(
    found.map((f) => `${f.line}:${f.literal}`),
    [
      '1:awaiting_approval',
      '2:MESSAGE_GONE',
      '3:SOMETHING_NEW',
      '4:manual_review',
      '5:failed',
      '6:parse',
      '7:send',
      '8:LLM_HTTP_401',
      '9:send_round',
      '10:approval',
      '11:manual_review',
      '11:approval',
      '12:/^LLM_/',
      '13:reply_sent',
      '14:retry_scheduled',
      '14:job_dead',
      '15:send_failed',
      '16:send_in_doubt',
      '17:too_large',
      '17:draft_held',
    ],
  );
  // Comments and prose are not findings; a profile named like a step is not a step; a word an audit
  // event shares with another vocabulary is a finding only where an event is named.
  assert.deepEqual(
    scan(
      'src/platform/planted.ts',
      "// status 'sent' and event 'reply_sent'\nconst text = `approved by ${by}`;\nact('parse');\nshow('send_in_doubt');\nif (stub?.statusReason === 'too_large') skip();",
    ),
    [],
  );
  // The contract modules declare the words.
  assert.ok(isContractFile('src/email/email.contract.ts') && !isContractFile('src/email/email-run.workflow.ts'));
});
