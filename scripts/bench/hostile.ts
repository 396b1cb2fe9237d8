/**
 * `npm run bench -- --hostile`: the time the hostile inputs of the tests take (test/support/hostile-inputs.ts),
 * which the tests themselves bound by counts and analysis, never by the clock: ms per input, the
 * median of three runs after a warm-up run, and the CPU time of this process over the same runs.
 * No stack is needed.
 */
import { findNeverAutomatic } from '../../src/autonomy/never-automatic';
import { extractiveSummary } from '../../src/drafting/case-summary';
import { keyFacts } from '../../src/drafting/claim-sentences';
import { extractHiddenText } from '../../src/drafting/html-hidden-text';
import { detectInjection } from '../../src/drafting/injection-detector';
import { knownFromMails } from '../../src/retrieval/known-personal-data';
import { maskPersonalData } from '../../src/retrieval/mask-personal-data';
import {
  deepHtml,
  hostileKnownMail,
  hugeMailText,
  injectionFlood,
  blankLines,
  letterRun,
  neverAutomaticMegabytes,
  summaryFloods,
} from '../../test/support/hostile-inputs';

export interface HostileFigure {
  input: string;
  chars: number;
  medianMs: number;
  cpuMs: number;
}

function measure(input: string, chars: number, run: () => unknown): HostileFigure {
  run();
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < 3; i++) {
    const t = process.hrtime.bigint();
    run();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const used = process.cpuUsage(cpu);
  return { input, chars, medianMs: times.sort((a, b) => a - b)[1]!, cpuMs: (used.user + used.system) / 1000 / 3 };
}

export function runHostileBench(log: (line: string) => void): HostileFigure[] {
  const at = new Date('2026-12-01T00:00:00Z');
  const from = { fromName: 'Anna Becker', fromAddress: 'anna@kunde.example' };
  const cases: Array<[string, string, () => unknown]> = [];
  const flood = injectionFlood();
  cases.push([
    'injection detector: near-miss flood, body and hidden HTML',
    flood,
    () => detectInjection({ body: flood, hiddenHtml: flood }),
  ]);
  const deep = deepHtml(200_000);
  cases.push(['hidden HTML text: 200,000 levels deep', deep, () => extractHiddenText(deep)]);
  const huge = hugeMailText();
  const mails = ['h1', 'h2', 'h3'].map((id) => ({ id, at, ...from, subject: 'Bestellung', text: huge }));
  cases.push(['case summary: three 5 MB mails', huge.repeat(3), () => extractiveSummary(mails, 'de')]);
  for (const f of summaryFloods()) {
    const text = `<b>Hallo</b>\n${f}`;
    cases.push([
      `case summary: flood ${JSON.stringify(f.slice(0, 8))}…`,
      text,
      () => extractiveSummary([{ id: 'f', at, ...from, subject: 'x', text }], 'de'),
    ]);
  }
  for (const text of neverAutomaticMegabytes()) {
    cases.push([
      `never-automatic topics: 1 MB of ${JSON.stringify(text.slice(0, 6)).replace(/\u200b/g, '\\u200b')}…`,
      text,
      () => findNeverAutomatic(text, ['hostile phrase', 'a a a a']),
    ]);
  }
  // The phone pattern of what is known about a correspondent backtracked in the fourth power of a digit run before 1.4.
  const digits = `Tel. 0${'1'.repeat(160)}x`;
  cases.push([
    'known personal data: a phone number of 160 digits',
    digits,
    () => knownFromMails([{ fromName: 'A', fromAddress: 'a@b.example', text: digits }]),
  ]);
  const letters = letterRun();
  cases.push(['masking: 50,000 letters without an @', letters, () => maskPersonalData(letters)]);
  cases.push(['key facts of a draft sentence: 50,000 letters', letters, () => keyFacts(letters)]);
  const blank = blankLines();
  cases.push(['injection detector: 50,000 blank lines', blank, () => detectInjection({ body: blank })]);
  const known = knownFromMails([hostileKnownMail()]);
  const plain = 'Nothing personal here: a.b and (.*) stay as they are.';
  cases.push(['masking with hostile known data', plain, () => maskPersonalData(plain, known)]);
  const figures = cases.map(([input, text, run]) => measure(input, text.length, run));
  for (const f of figures) {
    log(
      `${f.medianMs.toFixed(1).padStart(8)} ms  ${f.cpuMs.toFixed(1).padStart(8)} CPU ms  ${String(f.chars).padStart(9)} chars  ${f.input}`,
    );
  }
  return figures;
}
