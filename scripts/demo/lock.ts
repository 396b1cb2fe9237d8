import fs from 'node:fs';
import type { Cleanup } from './step';

/**
 * One demo at a time: a second one would wipe the data dirs and drop the database under the
 * first. A pid file whose process is gone (the demo was killed) is taken over.
 */
export function acquireDemoLock(file: string, cleanup: Cleanup): void {
  const pid = Number.parseInt(readOrEmpty(file), 10);
  if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
    throw new Error(`another demo is running (pid ${pid}); stop it with Ctrl-C in its terminal or kill ${pid}, then retry`);
  }
  fs.writeFileSync(file, `${process.pid}\n`);
  // Added first, so it is released last, after everything the demo started has stopped.
  cleanup.add(
    'demo lock',
    async () => {
      if (readOrEmpty(file).trim() === String(process.pid)) fs.rmSync(file, { force: true });
    },
    true,
  );
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
