/**
 * The shape of every configuration file the product reads (mailbox registry, routing rules,
 * autonomy policy, holidays, attack intents): which fields each object may have, at every level.
 * A schema (zod) declares the fields; `unknownFieldProblems` lists every key a file has beyond
 * them, with its path and the nearest known name, so a misspelt field is refused at start instead
 * of silently turning its feature off.
 *
 * The schemas here describe structure only: every field is optional to them and takes any value.
 * Required fields, types and ranges are checked by each file's parser, whose messages operators'
 * runbooks rely on; what the parser cannot see any more — a key it never reads — is this module's.
 */
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';

/** Where a key would belong instead, given the path of the object it was found in. */
export type Elsewhere = Record<string, (objectPath: PropertyKey[]) => PropertyKey[]>;

interface UnknownFieldParams {
  known: string[];
  elsewhere?: Elsewhere;
}

/** Any value: what it must be is the parser's business. */
export const anyValue = z.unknown();

/**
 * An object with exactly these fields (each optional); any other key is an unknown field.
 * `elsewhere` names fields of other objects a key is often put in by mistake (`sentFolder` in the
 * entry instead of its `imap`), so the suggestion can point there.
 */
export function fields(shape: Record<string, z.ZodType>, elsewhere?: Elsewhere) {
  const known = Object.keys(shape);
  const optional = Object.fromEntries(known.map((k) => [k, shape[k]!.optional()]));
  const params: UnknownFieldParams = { known, ...(elsewhere ? { elsewhere } : {}) };
  return z.object(optional).catchall(z.custom(() => false, { params }));
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A field that is checked as `schema` when it is an object (`providerFilesSent: { … }`) and left to the parser otherwise (`true`). */
export function whenObject(schema: z.ZodType) {
  return z.preprocess((v) => (isObject(v) ? v : undefined), schema.optional());
}

/** A list whose object items are checked as `item`; anything else is left to the parser. */
export function listOf(item: z.ZodType) {
  return z.preprocess((v) => (Array.isArray(v) ? v : undefined), z.array(whenObject(item)).optional());
}

/** A mapping from names the file chooses (mailbox ids, weekdays) to objects checked as `value`. */
export function mapOf(value: z.ZodType) {
  return whenObject(z.record(z.string(), whenObject(value)));
}

/**
 * An object whose fields depend on its `type` (`auth: { type: oauth2, … }`). Another type is the
 * parser's to refuse, with the types it knows.
 */
export function byType(variants: Record<string, Record<string, z.ZodType>>) {
  const schemas = Object.entries(variants).map(([type, shape]) => fields({ ...shape, type: z.literal(type) }));
  const types = Object.keys(variants);
  return z.preprocess(
    (v) => (isObject(v) && types.includes(v.type as string) ? v : undefined),
    z.discriminatedUnion('type', schemas as [ReturnType<typeof fields>, ...ReturnType<typeof fields>[]]).optional(),
  );
}

/** `mailboxes[0].imap.sentFolder`: the path as a reader finds it in the file. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(String(seg))) out += out ? `.${String(seg)}` : String(seg);
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}

/**
 * The known name closest to `word`, when it is close enough to be a slip of the keyboard: case is
 * ignored, a few letters may differ (one in a word of up to three, else a third of them, at least
 * two), or the word is the start of the name (`holidays` for `holidaysFile`).
 */
export function nearestName(word: string, names: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  const allowed = w.length <= 3 ? 1 : Math.max(2, Math.floor(w.length / 3));
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = distance(w, name.toLowerCase());
    if (!best || d < best.d) best = { name, d };
  }
  if (best && best.d <= allowed) return best.name;
  return w.length >= 4 ? names.find((n) => n.toLowerCase().startsWith(w)) : undefined;
}

/** One problem per unknown key: `mailboxes[0].imap.providerFileSent is not a known field, did you mean …?`. */
function describeUnknown(path: PropertyKey[], params: UnknownFieldParams, where: string): string {
  const key = String(path.at(-1));
  const near = nearestName(key, params.known);
  if (near) return `${where} is not a known field, did you mean ${near}?`;
  const other = params.elsewhere ? nearestName(key, Object.keys(params.elsewhere)) : undefined;
  if (other) return `${where} is not a known field here, did you mean ${formatPath(params.elsewhere![other]!(path.slice(0, -1)))}?`;
  return `${where} is not a known field (known: ${params.known.join(', ')})`;
}

/**
 * Every key of `doc` the schema does not know, each as one problem with its path. `place` lets a
 * file name a place its own way (a holidays file by line). Never throws: a document of the wrong
 * shape altogether is its parser's to report.
 */
export function unknownFieldProblems(schema: z.ZodType, doc: unknown, place: (path: PropertyKey[]) => string = formatPath): string[] {
  const result = schema.safeParse(doc);
  if (result.success) return [];
  const problems: string[] = [];
  for (const issue of result.error.issues) {
    const params = issue.code === 'custom' ? (issue.params as UnknownFieldParams | undefined) : undefined;
    if (params?.known) problems.push(describeUnknown(issue.path, params, place(issue.path)));
  }
  return problems;
}
