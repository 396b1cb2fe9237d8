import SMTPConnection from 'nodemailer/lib/smtp-connection';

/**
 * One SMTP connection for the send step and the mailbox check: implicit TLS on 465, STARTTLS
 * required elsewhere when TLS is asked for; `step` runs each command of the conversation raced
 * against the connection's 'error' event, which would otherwise crash the process unheard.
 */
export function openSmtpConnection(
  settings: { host: string; port: number; tls: boolean },
  options: Omit<SMTPConnection.Options, 'host' | 'port' | 'secure' | 'requireTLS'>,
): {
  conn: SMTPConnection;
  step<T>(start: (done: (err: unknown, value?: T) => void) => void): Promise<T>;
} {
  const conn = new SMTPConnection({
    host: settings.host,
    port: settings.port,
    secure: settings.tls && settings.port === 465,
    requireTLS: settings.tls && settings.port !== 465,
    ...options,
  });
  const broken = new Promise<never>((_, reject) => conn.on('error', reject));
  broken.catch(() => undefined);
  return {
    conn,
    step: <T>(start: (done: (err: unknown, value?: T) => void) => void): Promise<T> =>
      Promise.race([new Promise<T>((resolve, reject) => start((err, value) => (err ? reject(err) : resolve(value as T)))), broken]),
  };
}
