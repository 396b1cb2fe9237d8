/**
 * nginx (Debian's package, installed by scripts/setup.sh) as a TLS-terminating gRPC proxy in front
 * of a plain Temporal dev server: what a load balancer or ingress in front of a self-hosted
 * cluster does, and close to what a client of Temporal Cloud meets (TLS, mTLS or an API key, and
 * operator calls refused). Each instance has its own prefix folder, configuration and log files;
 * the system's nginx service and /etc/nginx are not used.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnManaged, type ManagedChild } from './child-process';
import { freePort } from './ports';
import { nginxPath } from './tool-paths';

export interface NginxGrpcProxyOptions {
  /** Holds nginx.conf, the pid file, the logs and nginx's temporary folders. */
  dir: string;
  /** host:port of the plain-text Temporal frontend. */
  target: string;
  /** Server certificate and key (PEM files). */
  cert: string;
  key: string;
  /** mTLS: only clients with a certificate from this CA get through (`ssl_verify_client on`). */
  clientCa?: string;
  /**
   * Every call must carry `authorization: Bearer <apiKey>`, else HTTP 401 (which gRPC clients
   * read as UNAUTHENTICATED). A stand-in for Temporal Cloud's API-key check, which nginx cannot do.
   */
  apiKey?: string;
  /**
   * Answer what Temporal Cloud refuses to a namespace's own credentials with gRPC PERMISSION_DENIED,
   * without passing it on: the whole operator service (search attributes), and registering and
   * updating a namespace (creation, retention).
   */
  refuseAdministration?: boolean;
}

export interface NginxGrpcProxy {
  /** host:port of the TLS listener, for TEMPORAL_ADDRESS. */
  address: string;
  /** The access log: one line per gRPC call with its method path, HTTP status and client certificate check. */
  accessLog(): string;
  stop(): Promise<void>;
}

/** What Temporal Cloud answers when a credential may not administer the namespace (the wording of its refusals). */
export const REFUSAL_MESSAGE = 'Request unauthorized: administration of the namespace is not allowed with these credentials';

/** The gRPC methods refused with `refuseAdministration`, as nginx location paths. */
const REFUSED_PATHS = [
  '/temporal.api.operatorservice.v1.OperatorService/',
  '= /temporal.api.workflowservice.v1.WorkflowService/RegisterNamespace',
  '= /temporal.api.workflowservice.v1.WorkflowService/UpdateNamespace',
];

/** Starts nginx in the foreground and resolves once it accepts TLS connections on its port. */
export async function startNginxGrpcProxy(opts: NginxGrpcProxyOptions): Promise<NginxGrpcProxy> {
  fs.mkdirSync(path.join(opts.dir, 'temp'), { recursive: true });
  const port = await freePort();
  const confFile = path.join(opts.dir, 'nginx.conf');
  fs.writeFileSync(confFile, nginxConf({ ...opts, port }));
  const logFile = path.join(opts.dir, 'nginx.log');
  const nginx = nginxPath();
  // -e: nginx opens its default error log under /var/log before it reads the configuration.
  const check = spawnManaged(nginx, ['-t', '-p', opts.dir, '-c', confFile, '-e', logFile], { logFile });
  if ((await check.exited) !== 0) throw new Error(`nginx refused its configuration ${confFile}:\n${check.logTail(20)}`);
  const proc = spawnManaged(nginx, ['-p', opts.dir, '-c', confFile, '-e', logFile], { logFile });
  const address = `127.0.0.1:${port}`;
  await waitForListener(port, proc);
  return {
    address,
    accessLog: () => readOrEmpty(path.join(opts.dir, 'access.log')),
    stop: () => proc.terminate('SIGQUIT', 5_000),
  };
}

function nginxConf(o: NginxGrpcProxyOptions & { port: number }): string {
  const refusals = o.refuseAdministration
    ? REFUSED_PATHS.map(
        (p) => `
      location ${p} {
        # A trailers-only gRPC answer: HTTP 200 with the status in the headers and no message.
        default_type application/grpc;
        add_header grpc-status 7 always;
        add_header grpc-message "${REFUSAL_MESSAGE}" always;
        return 200;
      }`,
      ).join('')
    : '';
  const apiKeyCheck = o.apiKey ? `if ($http_authorization != "Bearer ${o.apiKey}") { return 401; }` : '';
  const mtls = o.clientCa ? `ssl_verify_client on;\n    ssl_client_certificate ${o.clientCa};` : '';
  return `
# Written by test/support/services/nginx-grpc-proxy.ts
daemon off;
worker_processes 1;
pid ${path.join(o.dir, 'nginx.pid')};
error_log ${path.join(o.dir, 'nginx.log')} info;
# As root, workers would run as nobody and could not use the temporary folders made here.
${process.getuid?.() === 0 ? 'user root;' : ''}
events { worker_connections 256; }
http {
  log_format grpc '$request_uri $status grpc-status=$sent_http_grpc_status client-cert=$ssl_client_verify';
  access_log ${path.join(o.dir, 'access.log')} grpc;
  client_body_temp_path ${path.join(o.dir, 'temp')};
  proxy_temp_path ${path.join(o.dir, 'temp')};
  fastcgi_temp_path ${path.join(o.dir, 'temp')};
  uwsgi_temp_path ${path.join(o.dir, 'temp')};
  scgi_temp_path ${path.join(o.dir, 'temp')};
  server {
    listen 127.0.0.1:${o.port} ssl http2;
    ssl_certificate ${o.cert};
    ssl_certificate_key ${o.key};
    ${mtls}
    # Temporal's long polls last up to 70 s: nginx's 60 s default would cut every idle poll.
    grpc_read_timeout 300s;
    grpc_send_timeout 300s;
    client_body_timeout 300s;
    client_max_body_size 0;
    ${refusals}
    location / {
      ${apiKeyCheck}
      grpc_pass grpc://${o.target};
    }
  }
}
`;
}

async function waitForListener(port: number, proc: ManagedChild): Promise<void> {
  const net = await import('node:net');
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (proc.hasExited()) throw new Error(`nginx exited at start:\n${proc.logTail(20)}`);
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) {
      await proc.terminate('SIGKILL', 2_000);
      throw new Error(`nginx did not listen on 127.0.0.1:${port} within 20 s:\n${proc.logTail(20)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
