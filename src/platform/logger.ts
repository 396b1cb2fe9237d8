/**
 * Structured logs for every process (worker, review inbox, codec server, CLI): one JSON object per
 * line on stderr, `time` (ISO 8601), `level` (a word), `component`, `message` and the line's own
 * fields, so they can be grepped by correlation id (`correlationId` = workflow id) from poll to send
 * and by `requestId` through one HTTP request. pino writes them: fastify, which the HTTP servers
 * run on, takes the same logger (`createStructuredLogger`), so its lines have the same shape.
 *
 * The field is `message`, not pino's `msg`: the worker's lines have always said `message`, and the
 * operators' searches, the demo and the tests look for `"message":"worker started"`.
 */
import { pino, stdSerializers, type DestinationStream, type Logger as PinoLogger, type LoggerOptions } from 'pino';

/** LOG_LEVEL's words, most verbose first; `silent` writes nothing. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevelSetting = (typeof LOG_LEVELS)[number];
/** The level of one line. */
export type LogLevel = Exclude<LogLevelSetting, 'silent'>;

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** pino's logger, for the fastify servers (`loggerInstance`) and their requests' `req.log`. */
export type StructuredLogger = PinoLogger;

/** Where the lines go: stderr, or a test's collector. `write` is given one whole line each time. */
export type LogDestination = DestinationStream;

export interface LogOptions {
  /** This logger's own level; without it the process's (LOG_LEVEL, `setLogLevel`). */
  level?: LogLevelSetting;
  /** Without it, stderr. */
  destination?: LogDestination;
}

export const REDACTED = '[redacted]';

/**
 * Never written, wherever a caller puts them: session cookies, bearer tokens, CSRF tokens,
 * passwords, and Temporal payloads (decrypted personal data on the codec server).
 */
const REDACT_PATHS = [
  'cookie',
  'authorization',
  'password',
  'token',
  'csrf',
  '_csrf',
  'payloads',
  '*.cookie',
  '*.authorization',
  '*.password',
  '*.token',
  '*.csrf',
  '*._csrf',
  '*.payloads',
  '*.headers.cookie',
  '*.headers.authorization',
  '*.headers["x-csrf-token"]',
  '*.headers["set-cookie"]',
];

const OPTIONS: LoggerOptions = {
  messageKey: 'message',
  // No pid and hostname: the container or unit names the process.
  base: undefined,
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
  redact: { paths: REDACT_PATHS, censor: REDACTED },
  serializers: { err: stdSerializers.err, error: stdSerializers.err },
};

// Through process.stderr, as before pino: its writes to a pipe or file are synchronous, so a line
// logged just before process.exit (a fatal error) is not lost.
const STDERR: LogDestination = { write: (line: string) => void process.stderr.write(line) };

let processLogger: PinoLogger | undefined;
const root = (): PinoLogger => (processLogger ??= pino({ ...OPTIONS, level: 'info' }, STDERR));

/**
 * The process's level (LOG_LEVEL), for every logger made without a level of its own, those made
 * before it too (module-level loggers exist before the configuration is read).
 */
export function setLogLevel(level: LogLevelSetting): void {
  root().level = level;
}

/** A pino logger whose lines carry `component` (fastify's `loggerInstance`). */
export function createStructuredLogger(component: string, options: LogOptions = {}): StructuredLogger {
  const parent = options.destination ? pino({ ...OPTIONS, level: options.level ?? root().level }, options.destination) : root();
  return parent.child({ component }, options.level ? { level: options.level } : {});
}

/** The logger the code uses: `logger.info('message', { fields })`. */
export function createLogger(component: string, options: LogOptions = {}): Logger {
  return loggerOver(createStructuredLogger(component, options));
}

/** The `Logger` interface over a pino logger (a request's `req.log`, say). */
export function loggerOver(target: StructuredLogger): Logger {
  const log = (level: LogLevel, message: string, fields: Record<string, unknown> = {}) => target[level](fields, message);
  return {
    log,
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
  };
}
