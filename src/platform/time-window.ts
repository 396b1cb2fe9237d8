/**
 * A command's or page's `--since` window (the quality report, the audit access log): a duration
 * back from now, as people type it.
 */

/** `30d`, `12h`, `90m` or a plain number of days: the start of the window before `now`. */
export function parseWindow(text: string, now: Date): Date {
  const m = /^(\d+)\s*([dhm]?)$/.exec(text.trim());
  if (!m || Number(m[1]) <= 0) throw new Error(`--since "${text}": give a duration like 30d, 12h or 90m`);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, '': 86_400_000 }[m[2] as 'd' | 'h' | 'm' | ''];
  return new Date(now.getTime() - Number(m[1]) * unit);
}
