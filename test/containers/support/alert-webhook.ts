/**
 * A webhook receiver for Alertmanager in the container test, listening on the host's address where
 * the stack's Alertmanager reaches it, as a paging service or a chat bridge would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '../../support/wait';

export interface AlertNotice {
  at: number;
  status: string;
  alerts: Array<{ status: string; labels: Record<string, string>; startsAt: string }>;
}

export async function startAlertWebhook(host: string): Promise<{
  url: string;
  notices: AlertNotice[];
  /** The first notice after `since` that fires one of `names`; waits for it. */
  firing(names: string[], since: number, timeoutMs: number): Promise<AlertNotice & { alertname: string }>;
  stop(): Promise<void>;
}> {
  const notices: AlertNotice[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Omit<AlertNotice, 'at'>;
        notices.push({ at: Date.now(), status: body.status, alerts: body.alerts });
      } catch {
        // Not Alertmanager's JSON: kept out of the notices.
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/email-rag`,
    notices,
    firing: (names, since, timeoutMs) =>
      waitFor(
        `an alert among ${names.join(', ')} at the webhook`,
        () => {
          for (const n of notices) {
            if (n.at < since) continue;
            const a = n.alerts.find((x) => x.status === 'firing' && names.includes(x.labels.alertname ?? ''));
            if (a) return Promise.resolve({ ...n, alertname: a.labels.alertname! });
          }
          return Promise.resolve(undefined);
        },
        timeoutMs,
        2_000,
      ),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The Alertmanager configuration of the test: everything to the webhook, quickly. */
export function webhookAlertmanagerConfig(url: string): string {
  return `route:
  receiver: webhook
  group_by: [alertname]
  group_wait: 10s
  group_interval: 1m
  repeat_interval: 1h
receivers:
  - name: webhook
    webhook_configs:
      - url: '${url}'
        send_resolved: true
`;
}
