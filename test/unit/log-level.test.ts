/**
 * LOG_LEVEL: read with the configuration (every word pino knows, in any case; anything else is
 * refused at start with the words), and the shape of a log line at each level.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';
import { createLogger, LOG_LEVELS, setLogLevel, type LogDestination } from '../../src/platform/logger';

const base = { IMAP_USER: 'u', IMAP_PASSWORD: 'p' };

function collector(): { lines: Array<Record<string, unknown>>; destination: LogDestination } {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } };
}

test('LOG_LEVEL is info unless set; every level is accepted, in any case and with spaces', () => {
  assert.equal(loadConfig(base).logLevel, 'info');
  for (const level of LOG_LEVELS) {
    assert.equal(loadConfig({ ...base, LOG_LEVEL: level }).logLevel, level);
    assert.equal(loadConfig({ ...base, LOG_LEVEL: ` ${level.toUpperCase()} ` }).logLevel, level);
  }
  assert.equal(loadConfig({ ...base, LOG_LEVEL: '' }).logLevel, 'info', 'empty is unset');
});

test('an unknown LOG_LEVEL is refused at start with the accepted words, beside the other problems', () => {
  for (const bad of ['verbose', 'warning', '3', 'info,debug']) {
    assert.throws(
      () => loadConfig({ ...base, LOG_LEVEL: bad }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message.includes(`LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "${bad}"`),
      bad,
    );
  }
  assert.throws(
    () => loadConfig({ ...base, LOG_LEVEL: 'loud', IMAP_PORT: 'abc' }),
    (err: unknown) => err instanceof ConfigError && /LOG_LEVEL must be one of/.test(err.message) && /IMAP_PORT/.test(err.message),
  );
});

test('a log line: time, level as a word, component, message and its fields, one JSON object per line', () => {
  const { lines, destination } = collector();
  const logger = createLogger('worker', { destination, level: 'info' });
  logger.info('worker started', { taskQueue: 'email-rag', correlationId: 'email-x-1' });
  assert.equal(lines.length, 1);
  const [line] = lines;
  assert.deepEqual(Object.keys(line!).sort(), ['component', 'correlationId', 'level', 'message', 'taskQueue', 'time']);
  assert.equal(line!.level, 'info');
  assert.equal(line!.component, 'worker');
  assert.equal(line!.message, 'worker started');
  assert.equal(new Date(line!.time as string).toISOString(), line!.time, 'ISO 8601 in UTC');
});

test("a logger's level drops what is below it; silent writes nothing", () => {
  const expect: Record<string, string[]> = {
    trace: ['debug', 'info', 'warn', 'error'],
    debug: ['debug', 'info', 'warn', 'error'],
    info: ['info', 'warn', 'error'],
    warn: ['warn', 'error'],
    error: ['error'],
    fatal: [],
    silent: [],
  };
  for (const level of LOG_LEVELS) {
    const { lines, destination } = collector();
    const logger = createLogger('x', { destination, level });
    for (const at of ['debug', 'info', 'warn', 'error'] as const) logger[at](`at ${at}`);
    assert.deepEqual(
      lines.map((l) => l.level),
      expect[level],
      level,
    );
  }
});

test('secrets in a log line are replaced wherever a caller puts them', () => {
  const { lines, destination } = collector();
  createLogger('x', { destination }).warn('refused', {
    token: 'tok-1',
    password: 'pw-1',
    headers: { cookie: 'inbox_session=abc', authorization: 'Bearer xyz', accept: 'text/html' },
    payloads: [{ data: 'secret' }],
  });
  const text = JSON.stringify(lines);
  for (const secret of ['tok-1', 'pw-1', 'inbox_session=abc', 'Bearer xyz', 'secret']) assert.ok(!text.includes(secret), secret);
  assert.ok(text.includes('text/html'), 'other fields stay');
});

test("setLogLevel (LOG_LEVEL at start) sets the process's level, for loggers made before it too", (t) => {
  const written: string[] = [];
  t.mock.method(process.stderr, 'write', (chunk: string) => {
    written.push(chunk);
    return true;
  });
  const early = createLogger('early');
  try {
    setLogLevel('warn');
    early.info('dropped');
    early.warn('kept');
    setLogLevel('debug');
    early.debug('kept too');
  } finally {
    setLogLevel('info');
  }
  const lines = written.map((l) => JSON.parse(l) as { message: string; component: string });
  assert.deepEqual(
    lines.map((l) => l.message),
    ['kept', 'kept too'],
  );
  assert.ok(lines.every((l) => l.component === 'early'));
});
