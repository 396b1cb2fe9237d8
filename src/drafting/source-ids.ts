/**
 * The shapes of the ids a draft may cite: a knowledge passage (`knowledge:<path>#<n>`), a page of
 * an attachment (`attachment:<file>#p<n>`), a stored mail (`email-<account>-<folder>-<uidvalidity>-<uid>`,
 * `email-file-<hash>`, our sent reply to it `…:draft:<n>:sent`) and a case (`case-<hash>`). They
 * are ours: a customer never reads one. Pure and without imports, so the workflow's decision rules
 * can refuse an approved text that names one.
 */
const MAIL_SUFFIX = String.raw`(?::draft:\d+(?::sent)?)?`;
const ID_SHAPES = [
  String.raw`knowledge:\S+?#\d+`,
  String.raw`attachment:\S+?#p\d+`,
  String.raw`email-file-[0-9a-f]{16,}${MAIL_SUFFIX}`,
  String.raw`email-[A-Za-z0-9._@-]+?-\d+-\d+${MAIL_SUFFIX}`,
  String.raw`case-[0-9a-f]{24}`,
];

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A pattern that finds every internal id in a text: the shapes above and, longest first, the ids
 * a draft was given (a test's or an older index's id may have another shape). Global: use it with
 * matchAll or replace.
 */
export function sourceIdPattern(knownIds: readonly string[] = []): RegExp {
  const known = [...new Set(knownIds.filter((id) => id.trim() !== ''))].sort((a, b) => b.length - a.length).map(escape);
  // No letter or digit may run on before or after an id ("my-email-…" is no id of ours).
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${[...known, ...ID_SHAPES].join('|')})(?![\\p{L}\\p{N}_])`, 'gu');
}

/** The fixed shapes alone, compiled once: a pattern with a draft's ids costs a compile per draft. */
const SHAPES = sourceIdPattern();

/**
 * Whether a text may name an internal id: false means `sourceIdPattern(knownIds)` finds none in
 * it (every match is a known id the text contains, or one of the fixed shapes). A look that costs
 * far less than building that pattern, whose letter classes V8 compiles afresh for every draft.
 */
export function mayNameSourceIds(text: string, knownIds: readonly string[] = []): boolean {
  if (knownIds.some((id) => id.trim() !== '' && text.includes(id))) return true;
  SHAPES.lastIndex = 0;
  return SHAPES.test(text);
}

/** The internal ids a text names, each once, in order of appearance. */
export function internalSourceIds(text: string, knownIds: readonly string[] = []): string[] {
  if (!mayNameSourceIds(text, knownIds)) return [];
  return [...new Set([...text.matchAll(sourceIdPattern(knownIds))].map((m) => m[0]))];
}
