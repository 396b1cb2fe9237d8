import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { errorMessage } from '../platform/errors';
import { anyValue, fields, listOf, unknownFieldProblems } from '../platform/config-schema';

/** One attack intent: what an attacker wants, said in a few example sentences (German and English). */
export interface AttackIntent {
  /** Lower-case letters, digits and `-`; reported as `intent:<label>`. */
  label: string;
  examples: string[];
}

/**
 * The labelled set the intent detector compares mail with: attack intents, and ordinary support
 * sentences close to them in wording (`benign`): a sentence nearest to one of those is not flagged.
 */
export interface IntentSet {
  intents: AttackIntent[];
  benign: string[];
}

/** The set shipped with the product (built output: copied beside this file by scripts/build.ts). */
export const SHIPPED_INTENTS_FILE = path.resolve(__dirname, 'data', 'attack-intents.yaml');

const LABEL = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** Every field an intent file may have; any other key is refused with its path. */
const INTENTS_SCHEMA = fields({ intents: listOf(fields({ label: anyValue, examples: anyValue })), benign: anyValue });
const MAX_EXAMPLE_CHARS = 500;

/**
 * Parses an intent file (YAML: `intents: [{ label, examples: [...] }]`, optional `benign: [...]`).
 * Throws an Error naming `source` and every problem found; an empty or wrong file is a mistake.
 */
export function parseIntentSet(text: string, source: string): IntentSet {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new Error(`${source}: not valid YAML: ${errorMessage(err)}`);
  }
  const problems: string[] = [];
  const root = (doc ?? {}) as { intents?: unknown; benign?: unknown };
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    problems.push('expected a mapping with `intents` (and optionally `benign`)');
  else problems.push(...unknownFieldProblems(INTENTS_SCHEMA, doc));
  const intents: AttackIntent[] = [];
  if (root.intents !== undefined && !Array.isArray(root.intents)) problems.push('`intents` must be a list');
  for (const [i, raw] of (Array.isArray(root.intents) ? root.intents : []).entries()) {
    const entry = (raw ?? {}) as { label?: unknown; examples?: unknown };
    const label = typeof entry.label === 'string' ? entry.label.trim() : '';
    if (!LABEL.test(label))
      problems.push(`intents[${i}]: label must be lower-case letters, digits and '-', got ${JSON.stringify(entry.label)}`);
    const examples = sentences(entry.examples, `intents[${i}].examples`, problems);
    if (Array.isArray(entry.examples) && examples.length === 0) problems.push(`intents[${i}]: no examples`);
    intents.push({ label, examples });
  }
  const benign = root.benign === undefined ? [] : sentences(root.benign, 'benign', problems);
  if (intents.length === 0 && benign.length === 0 && problems.length === 0) problems.push('no intents and no benign sentences');
  if (problems.length > 0) throw new Error(`${source}: ${problems.join('; ')}`);
  return { intents, benign };
}

function sentences(raw: unknown, where: string, problems: string[]): string[] {
  if (!Array.isArray(raw)) {
    problems.push(`${where} must be a list of sentences`);
    return [];
  }
  const out: string[] = [];
  for (const [i, s] of raw.entries()) {
    if (typeof s !== 'string' || !s.trim()) problems.push(`${where}[${i}] must be a non-empty string`);
    else if (s.length > MAX_EXAMPLE_CHARS) problems.push(`${where}[${i}] is longer than ${MAX_EXAMPLE_CHARS} characters`);
    else out.push(s.trim());
  }
  return out;
}

/** Operators' additions join the shipped set; examples of a label both name are pooled. */
export function mergeIntentSets(base: IntentSet, extra: IntentSet): IntentSet {
  const byLabel = new Map(base.intents.map((i) => [i.label, [...i.examples]]));
  for (const intent of extra.intents) byLabel.set(intent.label, [...new Set([...(byLabel.get(intent.label) ?? []), ...intent.examples])]);
  return {
    intents: [...byLabel].map(([label, examples]) => ({ label, examples })),
    benign: [...new Set([...base.benign, ...extra.benign])],
  };
}

/** The shipped set, merged with the operator's file (INJECTION_INTENTS_FILE) when one is given. */
export function readIntentSet(operatorFile?: string): IntentSet {
  const shipped = parseIntentSet(readFileSync(SHIPPED_INTENTS_FILE, 'utf8'), SHIPPED_INTENTS_FILE);
  if (!operatorFile) return shipped;
  let text: string;
  try {
    text = readFileSync(operatorFile, 'utf8');
  } catch (err) {
    throw new Error(`${operatorFile}: cannot be read: ${errorMessage(err)}`);
  }
  return mergeIntentSets(shipped, parseIntentSet(text, operatorFile));
}
