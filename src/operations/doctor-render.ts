/** `email-rag doctor`'s table: one line per part, the fix beneath a part that is not ok, a closing count. */
import { partName, type DoctorReport } from './doctor-report';
import { DOCTOR_VERDICTS } from '../platform/contract';

export function renderDoctorReport(report: DoctorReport): string {
  const names = report.parts.map(partName);
  const width = Math.max('part'.length, ...names.map((n) => n.length));
  const verdictWidth = 'verdict'.length;
  const lines = [`${'part'.padEnd(width)}  ${'verdict'.padEnd(verdictWidth)}  detail`];
  const indent = ' '.repeat(width + verdictWidth + 4);
  report.parts.forEach((part, i) => {
    lines.push(`${names[i]!.padEnd(width)}  ${part.verdict.padEnd(verdictWidth)}  ${part.detail}`);
    if (part.verdict !== DOCTOR_VERDICTS.ok && part.fix) lines.push(`${indent}fix: ${part.fix}`);
  });
  lines.push('', summaryLine(report));
  return lines.join('\n');
}

/** `9 ok, 1 warn, 0 fail: exit 0` and, when warnings decide it, why. */
export function summaryLine(report: DoctorReport): string {
  const { ok, warn, fail } = report.counts;
  const why =
    report.exitCode === 1 && fail === 0
      ? ' (--strict: warnings fail)'
      : report.exitCode === 0 && warn > 0
        ? ' (warnings do not fail without --strict)'
        : '';
  return `${ok} ok, ${warn} warn, ${fail} fail: exit ${report.exitCode}${why}`;
}
