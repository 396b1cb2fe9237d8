/**
 * Structured logs: one JSON object per line on stderr, so they can be grepped by correlation id
 * (`correlationId` = workflow id) from poll to send.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function createLogger(component: string, write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Logger {
  const log = (level: LogLevel, message: string, fields: Record<string, unknown> = {}) => {
    write(JSON.stringify({ time: new Date().toISOString(), level, component, message, ...fields }));
  };
  return {
    log,
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
  };
}
