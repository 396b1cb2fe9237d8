/**
 * The gRPC status codes the product decides on when Temporal answers a call with an error (the
 * numbers are gRPC's, fixed by its specification; the SDK hands them over as `err.code`).
 */
export const GRPC_STATUS = {
  invalidArgument: 3,
  notFound: 5,
  alreadyExists: 6,
  permissionDenied: 7,
  unimplemented: 12,
  unauthenticated: 16,
} as const;

/** The gRPC status code of an error from a Temporal call, when it has one. */
export function grpcCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * The server will not do this for these credentials (Temporal Cloud to a namespace's API key or
 * certificate, a cluster whose authorizer reserves the call to its administrators) or does not
 * offer the call at all: an administrator has to do it elsewhere, trying again changes nothing.
 */
export function refusedByServer(err: unknown): boolean {
  const code = grpcCode(err);
  return code === GRPC_STATUS.permissionDenied || code === GRPC_STATUS.unimplemented;
}

/** The server's own words, without the SDK's `7 PERMISSION_DENIED: ` prefix or a stack. */
export function serverReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (message.split('\n')[0] ?? '').replace(/^\d+ [A-Z_]+: /, '');
}
