/**
 * Text for the retrieval growth bench: knowledge passages from the documentation that npm packages
 * ship (every Markdown file under node_modules, split as the knowledge folder is split), as many
 * as a size needs; past the distinct passages, "versions" of them — a version line and one
 * sentence left out — as a help centre keeps an article for each product version. And a cheap
 * deterministic embedder for sizes the local model cannot embed in minutes on this machine.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Embedder } from '../../src/retrieval/embedder.port';
import { splitPassages } from '../../src/retrieval/passages';

/** Markdown files under `root`, depth first, in a stable order. */
function markdownFiles(root: string, out: string[] = []): string[] {
  let entries: string[];
  try {
    entries = readdirSync(root).sort();
  } catch {
    return out;
  }
  for (const name of entries) {
    const full = path.join(root, name);
    const st = statSync(full, { throwIfNoEntry: false });
    if (st?.isDirectory()) markdownFiles(full, out);
    else if (st?.isFile() && /\.md$/i.test(name) && st.size < 400_000) out.push(full);
  }
  return out;
}

/** A passage that reads as prose: not a badge line, table, or code block alone. */
const prose = (p: string) => p.length >= 120 && (p.match(/[a-z]{3,}/gi)?.length ?? 0) >= 15 && !p.startsWith('```');

/** `count` knowledge passages as `{ file, text }`, distinct ones first, then versions of them. */
export function documentationPassages(root: string, count: number): Array<{ file: string; text: string }> {
  const seen = new Set<string>();
  const distinct: Array<{ file: string; text: string }> = [];
  for (const file of markdownFiles(root)) {
    const rel = path.relative(root, file);
    for (const text of splitPassages(readFileSync(file, 'utf8'))) {
      if (!prose(text) || seen.has(text)) continue;
      seen.add(text);
      distinct.push({ file: `docs/${rel}`, text });
    }
  }
  if (distinct.length === 0) throw new Error(`no Markdown documentation under ${root}`);
  const out = distinct.slice(0, count);
  for (let version = 2; out.length < count; version++) {
    for (const [i, p] of distinct.entries()) {
      if (out.length >= count) break;
      const sentences = p.text.split(/(?<=[.!?])\s+/);
      if (sentences.length > 2) sentences.splice((i + version) % sentences.length, 1);
      out.push({ file: `${p.file}@v${version}`, text: `Version ${version}.${i % 10}\n\n${sentences.join(' ')}` });
    }
  }
  return out;
}

/** FNV-1a: stable across runs and platforms. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (const ch of s) {
    h ^= ch.codePointAt(0) ?? 0;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * A hashed bag of words and character trigrams, unit length: texts sharing words (or word
 * stems) are near. No model: it measures the index's time and memory at any size, not meaning.
 */
export function hashedEmbedder(dims = 256): Embedder {
  const embedOne = (text: string): number[] => {
    const v = new Array<number>(dims).fill(0);
    for (const word of text.toLowerCase().match(/\p{L}[\p{L}\p{N}]+/gu) ?? []) {
      const h = fnv1a(word);
      v[h % dims]! += h & 0x8000_0000 ? 1 : -1;
      for (let i = 0; i + 3 <= word.length; i++) {
        const t = fnv1a(`#${word.slice(i, i + 3)}`);
        v[t % dims]! += (t & 0x8000_0000 ? 1 : -1) * 0.5;
      }
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  };
  return { model: `hashed-words-trigrams-${dims}`, embed: (texts) => Promise.resolve(texts.map(embedOne)) };
}
