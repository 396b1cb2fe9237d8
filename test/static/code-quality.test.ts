import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function check(cmd: string, args: string[]): Promise<void> {
  try {
    await run(cmd, args, { maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    assert.fail(`${cmd} ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

test('strict type check passes', () => check('npx', ['tsc', '--noEmit', '-p', '.']));
test('lint passes (deterministic workflows, type-only activity imports, no floating promises, no cycles)', () =>
  check('npx', ['eslint', '.']));
test('formatting is Prettier’s', () => check('npx', ['prettier', '--check', '.']));
