/**
 * The docs name only files that exist. Every relative Markdown link (with its `#anchor` when it
 * points at a Markdown file) and every repository path in backticks in README.md, CONTRIBUTING.md
 * and docs/ must resolve: a renamed or deleted file otherwise leaves a reader following a dead
 * reference. CHANGELOG.md is left out: it is history and names files as they were then.
 * Run by `npm run check`; prints `file:line: ref does not exist` for each and exits 1 on any.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

export interface Reference {
  line: number;
  /** A link's target as written (`../README.md#start-here`) or a path in backticks (`src/config.ts`). */
  target: string;
  kind: 'link' | 'path';
}

export interface Broken {
  file: string;
  line: number;
  target: string;
  /** `does not exist`, and for a missing anchor which file lacks it. */
  fault: string;
}

/** Fenced code blocks hold commands and examples, not references: blanked, keeping the line numbers. */
function withoutFences(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker !== undefined) fence = marker[0];
      else if (fence !== undefined && marker?.[0] === fence) fence = undefined;
      else if (fence === undefined) return line;
      return '';
    })
    .join('\n');
}

/**
 * A backtick span that names a repository path: a slash, nothing but path characters, and a first
 * segment that is a top-level entry of the repository (`src/config.ts`, `deploy/`, `test/e2e`).
 * Wildcards, placeholders (`<release>`, `…`, `{a,b}`) and commands (a space) are not paths.
 */
export function isRepoPath(span: string, topLevel: ReadonlySet<string>): boolean {
  if (!span.includes('/') || span.includes('...') || !/^[\w@+-][\w.@+-]*(\/[\w.@+-]+)*\/?$/.test(span)) return false;
  return topLevel.has(span.split('/')[0] ?? '');
}

/** The links and backtick paths of a Markdown text, with the line each starts on. */
export function referencesIn(markdown: string, topLevel: ReadonlySet<string>): Reference[] {
  let text = withoutFences(markdown);
  const lineAt = (index: number): number => text.slice(0, index).split('\n').length;
  const found: Reference[] = [];
  for (const m of text.matchAll(/`([^`]+)`/g)) {
    if (isRepoPath(m[1] ?? '', topLevel)) found.push({ line: lineAt(m.index), target: m[1] ?? '', kind: 'path' });
  }
  // Code spans blanked (newlines kept) so that a link written inside one, as an example, is not read.
  text = text.replace(/`[^`]+`/g, (span) => span.replace(/[^\n]/g, ' '));
  for (const m of text.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1] ?? '';
    // Web and mail addresses are not files; a pure `#anchor` stays within the page.
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    found.push({ line: lineAt(m.index), target, kind: 'link' });
  }
  return found.sort((a, b) => a.line - b.line);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces become hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>|[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings; a repeated heading gets `-1`, `-2`, … as on GitHub. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutFences(markdown).matchAll(/^#{1,6}\s+(.*?)(?:\s+#+)?\s*$/gm)) {
    const base = slug(m[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Which of these paths git ignores: made on the machine (`deploy/.env`, `.tools/venv`), absent from a checkout. */
function ignoredByGit(root: string, paths: string[]): Set<string> {
  if (paths.length === 0) return new Set();
  try {
    const out = execFileSync('git', ['check-ignore', '--no-index', '--', ...paths], { cwd: root, encoding: 'utf8' });
    return new Set(out.split('\n').filter(Boolean));
  } catch (error) {
    // Exit status 1 means that none of them is ignored; anything else is a real failure.
    if ((error as { status?: number }).status === 1) return new Set();
    throw error;
  }
}

function markdownFiles(root: string): string[] {
  const docs = readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
  return ['README.md', 'CONTRIBUTING.md', ...docs.sort().map((f) => path.posix.join('docs', f))];
}

/** What is wrong with one reference, or undefined when it resolves; `anchors` caches each file's headings. */
function faultOf(root: string, page: string, ref: Reference, anchors: Map<string, Set<string>>): string | undefined {
  const [rawPath = '', anchor] = ref.target.split('#', 2);
  const target = decodeURIComponent(rawPath);
  const here = path.dirname(path.join(root, page));
  // A link is relative to its page; a backtick path to the repository root first, then to the page.
  const candidates = ref.kind === 'link' ? [path.resolve(here, target)] : [path.join(root, target), path.resolve(here, target)];
  const full = candidates.find((c) => existsSync(c));
  if (full === undefined) {
    // A path git ignores is made on the machine, not broken. Asked as a folder too: git matches a
    // folder pattern (`secrets/`) to a missing path only when it ends in `/`.
    const repoPath = path.relative(root, candidates[0] ?? root);
    const generated = !repoPath.startsWith('..') && ignoredByGit(root, [repoPath, `${repoPath}/`]).size > 0;
    return generated ? undefined : 'does not exist';
  }
  if (ref.kind !== 'link' || anchor === undefined || !full.endsWith('.md')) return undefined;
  if (!anchors.has(full)) anchors.set(full, anchorsOf(readFileSync(full, 'utf8')));
  return anchors.get(full)?.has(anchor) ? undefined : `does not exist (no such heading in ${path.relative(root, full)})`;
}

export function checkDocs(root: string): { files: number; references: number; broken: Broken[] } {
  const ignored = ignoredByGit(root, readdirSync(root));
  const topLevel = new Set(readdirSync(root).filter((name) => name !== '.git' && !ignored.has(name)));
  const anchors = new Map<string, Set<string>>();
  const files = markdownFiles(root);
  let references = 0;
  const broken = files.flatMap((file) =>
    referencesIn(readFileSync(path.join(root, file), 'utf8'), topLevel).flatMap((ref) => {
      references += 1;
      const fault = faultOf(root, file, ref, anchors);
      return fault === undefined ? [] : [{ file, line: ref.line, target: ref.target, fault }];
    }),
  );
  return { files: files.length, references, broken };
}

function main(): void {
  const { files, references, broken } = checkDocs(path.resolve(__dirname, '..'));
  for (const b of broken) console.log(`${b.file}:${b.line}: ${b.target} ${b.fault}`);
  console.log(`check-docs: ${references} references in ${files} Markdown files, ${broken.length} broken`);
  process.exitCode = broken.length > 0 ? 1 : 0;
}

if (require.main === module) main();
