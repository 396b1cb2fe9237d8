/**
 * The hostile inputs of the "stays linear on hostile text" tests, in one place: the tests check
 * what each gives and a deterministic bound on the work (the regexes pass the super-linear lint,
 * inputs are capped, scans are counted); `npm run bench -- --hostile` (scripts/bench/hostile.ts)
 * times the same inputs. No test times them.
 */

/** The injection detector: many near-misses of its patterns and a long tail without a sentence end. */
export const injectionFlood = (): string => `${'ignore the '.repeat(20_000)}${'send me the password '.repeat(5_000)}${'a'.repeat(200_000)}`;

/** HTML nested `levels` deep with hidden text at the bottom. */
export const deepHtml = (levels: number): string => `${'<div>'.repeat(levels)}<span hidden>deep</span>${'</div>'.repeat(levels)}`;

/** A 5 MB mail: one sentence, then filler. */
export const hugeMailText = (): string =>
  `Bitte prüfen Sie meine Bestellung 998877, sie ist nicht angekommen.\n\n${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(90_000)}`;

/** Mail text that floods the case summary's HTML reading: unclosed tags, scripts, comments, quotes. */
export const summaryFloods = (): string[] => [
  '<div '.repeat(20_000),
  '<script>'.repeat(12_500),
  '<!--'.repeat(25_000),
  '<'.repeat(100_000),
  '> x\n'.repeat(25_000),
];

/** A megabyte each of what could make the never-automatic topics' patterns backtrack. */
export const neverAutomaticMegabytes = (): string[] => {
  const mb = 1 << 20;
  return [
    'a'.repeat(mb),
    '1'.repeat(mb),
    '€'.repeat(mb),
    '1 '.repeat(mb / 2),
    '1,'.repeat(mb / 2),
    'geld'.padEnd(mb, ' '),
    'erstat '.repeat(mb / 7),
    'ü'.repeat(mb),
    '\u200B'.repeat(mb),
    'escalate to '.repeat(mb / 12),
    'EUR'.repeat(mb / 3),
    `${'9'.repeat(mb)}€`,
  ];
};

/** Known personal data whose names and signature are regex syntax (the masking must treat them as text). */
export const hostileKnownMail = () => ({
  fromName: 'a.*(b)+[c]'.repeat(50),
  fromAddress: 'x+y@(evil).example',
  text: 'Best,\n(.*)+$\n',
});

/** Letters without an `@`: each start of an address pattern used to scan to the end (quadratic). */
export const letterRun = (): string => 'a'.repeat(50_000);

/** Blank lines with nothing after them: each line start of a `^\s*…` pattern used to scan them all. */
export const blankLines = (): string => `${'\n'.repeat(50_000)}x`;
