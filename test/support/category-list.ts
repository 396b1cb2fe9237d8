import { writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * A CATEGORIES_FILE with these names (and a plain description each), for tests whose rules and
 * policies name categories of their own: an installation's list, as the product reads it.
 */
export function categoryListFile(dir: string, names: string[]): string {
  const file = path.join(dir, 'categories.yaml');
  writeFileSync(
    file,
    `categories:\n${names.map((n) => `  - name: ${n}\n    description: Mail about ${n.replace(/[_-]/g, ' ')}.\n`).join('')}`,
  );
  return file;
}
