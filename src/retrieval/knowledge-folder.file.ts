import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { KnowledgeFile } from './knowledge.port';

const EXTENSIONS = new Set(['.md', '.markdown', '.txt']);
/** A knowledge file is a page of FAQ or policy, not a data dump: larger files are skipped. */
export const MAX_KNOWLEDGE_FILE_BYTES = 1024 * 1024;

/**
 * The Markdown and text files below `dir`, sorted by path. Hidden entries and symbolic links are
 * skipped (a link could pull any file of the machine into every prompt); so are files above the
 * size limit, which are named in `skipped`.
 */
export function readKnowledgeFolder(dir: string): { files: KnowledgeFile[]; skipped: string[] } {
  const files: KnowledgeFile[] = [];
  const skipped: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      if (name.startsWith('.')) continue;
      const relPath = rel ? `${rel}/${name}` : name;
      const full = path.join(dir, relPath);
      const st = lstatSync(full);
      if (st.isSymbolicLink()) {
        skipped.push(`${relPath} (symbolic link)`);
      } else if (st.isDirectory()) {
        walk(relPath);
      } else if (st.isFile() && EXTENSIONS.has(path.extname(name).toLowerCase())) {
        if (st.size > MAX_KNOWLEDGE_FILE_BYTES) {
          skipped.push(`${relPath} (${st.size} bytes, above ${MAX_KNOWLEDGE_FILE_BYTES})`);
          continue;
        }
        const bytes = readFileSync(full);
        files.push({ path: relPath, text: bytes.toString('utf8'), sha256: createHash('sha256').update(bytes).digest('hex') });
      }
    }
  };
  walk('');
  return { files, skipped };
}
