import { chmodSync, closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Replaces a secret file's content so that a reader sees the old or the new secret, never half
 * of one: written beside it, flushed, then renamed over it. The file keeps its mode (0600 when it
 * is new, or `force.mode`), and the temporary file is created with that mode, so the secret is
 * never readable by others.
 */
export function writeSecretFileAtomically(file: string, value: string, force: { mode?: number } = {}): void {
  const full = path.resolve(file);
  let mode = force.mode ?? 0o600;
  try {
    if (force.mode === undefined) mode = statSync(full).mode & 0o777;
  } catch {
    // a new file: 0600
  }
  const tmp = path.join(path.dirname(full), `.${path.basename(full)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(tmp, 'wx', mode);
  try {
    writeSync(fd, `${value}\n`);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  chmodSync(tmp, mode); // the umask may have narrowed it
  renameSync(tmp, full);
}
