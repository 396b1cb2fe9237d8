/** "3 d 4 h", "2 h 5 min", "7 min", "40 s": how long something waited, for people. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

export function formatTime(d: Date | null | undefined): string {
  return d ? d.toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : '–';
}

/** "14:05 UTC": a time later today, such as the end of a claim. */
export function formatClock(d: Date): string {
  return `${d.toISOString().slice(11, 16)} UTC`;
}
