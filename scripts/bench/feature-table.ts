/**
 * What each default feature costs per email: the pipeline bench run once with every default
 * feature on (the demo's configuration: IMAP IDLE, cases, the local embedder with the intent
 * guard, payload encryption) and once with each of them off, every run with its own bare twin on
 * its own stack in the same hour, so that each row's ratio compares like with like.
 *
 *   npm run bench -- --features [--emails N]
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

interface Variant {
  name: string;
  /** What the run sets on top of the demo's configuration. */
  env: Record<string, string>;
}

/** The demo's configuration, and each default feature switched off in turn. */
function variants(): Variant[] {
  const keys = { PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}`, PAYLOAD_KEY_ID: 'bench' };
  return [
    { name: 'every default feature on (demo configuration)', env: { ...keys } },
    { name: 'cases off (CASES=off)', env: { ...keys, CASES: 'off' } },
    { name: 'embedder and intent guard off (EMBEDDER=off)', env: { ...keys, EMBEDDER: 'off' } },
    { name: 'IMAP IDLE off (IMAP_IDLE=off)', env: { ...keys, IMAP_IDLE: 'off' } },
    { name: 'payload encryption off (no PAYLOAD_KEYS)', env: { PAYLOAD_KEYS: '' } },
  ];
}

type Summary = {
  emailsPerSecond: number;
  twinWorkflowsPerSecond: number | null;
  ratioToTwin: number | null;
  sendsPerSecond: number;
  duplicates: number;
  rssMB: Record<string, number>;
  cpuMsPerEmail: Record<'intake' | 'sends', { total: number }>;
  serverCpuMsPerEmail: { intake: number; sends: number };
  othersCpuMsPerEmail: { intake: Record<string, number> };
  historyEvents: {
    email: { events: number } | null;
    approvalToSent: { events: number } | null;
    caseRun: { events: number; activities: number } | null;
  };
};

function runOne(v: Variant, emails: number, extra: string[]): Promise<Summary> {
  const script = path.join(__dirname, '..', 'bench.ts');
  const args = ['--import', 'tsx', script, '--emails', String(emails), '--twin', '--json', ...extra];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...v.env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`bench for "${v.name}" exited with ${code}`));
      try {
        resolve(JSON.parse(out.slice(out.indexOf('{'))) as Summary);
      } catch (err) {
        reject(new Error(`bench for "${v.name}" printed no report: ${(err as Error).message}`));
      }
    });
  });
}

const f1 = (n: number | null | undefined) => (n === null || n === undefined || Number.isNaN(n) ? '-' : n.toFixed(1));
const f2 = (n: number | null | undefined) => (n === null || n === undefined ? '-' : n.toFixed(2));

/** `extra`: arguments every run gets (`--empty` for the empty installation). */
export async function runFeatureTable(emails: number, log: (line: string) => void, extra: string[] = []): Promise<void> {
  const rows: Array<{ v: Variant; s: Summary }> = [];
  for (const v of variants()) {
    log(`bench --features: ${v.name}, ${emails} emails`);
    rows.push({ v, s: await runOne(v, emails, extra) });
  }
  const head =
    '| configuration | intake emails/s | twin wf/s | ratio | worker CPU ms/email (intake + send) | server CPU ms/email (intake + send) | embedder / MariaDB ms/email (intake) | history events (email + case) | case activity tasks | drain sends/s | RSS waiting MB | duplicates |';
  const lines = [head, `|${'---|'.repeat(12)}`];
  for (const { v, s } of rows) {
    const h = s.historyEvents;
    const events = (h.email?.events ?? 0) + (h.approvalToSent?.events ?? 0);
    lines.push(
      `| ${v.name} | ${f1(s.emailsPerSecond)} | ${f1(s.twinWorkflowsPerSecond)} | ${f2(s.ratioToTwin)} | ` +
        `${f1(s.cpuMsPerEmail.intake.total)} + ${f1(s.cpuMsPerEmail.sends.total)} | ` +
        `${f1(s.serverCpuMsPerEmail.intake)} + ${f1(s.serverCpuMsPerEmail.sends)} | ` +
        `${f1(s.othersCpuMsPerEmail.intake.embedder)} / ${f1(s.othersCpuMsPerEmail.intake.mariadb)} | ` +
        `${events} + ${h.caseRun?.events ?? 0} | ${h.caseRun?.activities ?? 0} | ${f1(s.sendsPerSecond)} | ${s.rssMB.waiting ?? '-'} | ${s.duplicates} |`,
    );
  }
  console.log(
    `\nper-feature cost, ${emails} emails each, ${extra.includes('--empty') ? 'empty' : 'lived-in'} installation (npm run bench -- --features --emails ${emails}${extra.length ? ` ${extra.join(' ')}` : ''}):\n`,
  );
  console.log(lines.join('\n'));
}
