/** oidc-provider ships no type declarations; the launcher uses a handful of its members. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  const Provider: new (
    issuer: string,
    configuration: object,
  ) => {
    use(middleware: (ctx: { path: string; body: unknown }, next: () => Promise<void>) => Promise<void>): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  };
  export default Provider;
}
