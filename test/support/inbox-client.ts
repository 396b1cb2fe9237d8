/** A browser-less client of the review inbox over HTTP: one cookie, the form's CSRF token, no redirects followed. */
export interface InboxClient {
  cookie: string | undefined;
  get(path: string): Promise<Response>;
  /** Posts a form with the CSRF token of the page last read (GET `csrfFrom` first when given). */
  post(path: string, form: Record<string, string>, csrfFrom?: string): Promise<Response>;
  login(name: string, password: string): Promise<Response>;
}

export function inboxClient(baseUrl: string, headers: Record<string, string> = {}): InboxClient {
  let csrf = '';
  const client: InboxClient = {
    cookie: undefined,
    async get(path) {
      const res = await fetch(`${baseUrl}${path}`, {
        redirect: 'manual',
        headers: { ...headers, ...(client.cookie ? { cookie: client.cookie } : {}) },
      });
      remember(res);
      const html = await res.clone().text();
      csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? csrf;
      return res;
    },
    async post(path, form, csrfFrom) {
      if (csrfFrom) await client.get(csrfFrom);
      const res = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', ...(client.cookie ? { cookie: client.cookie } : {}) },
        body: new URLSearchParams({ _csrf: csrf, ...form }).toString(),
      });
      remember(res);
      return res;
    },
    login(name, password) {
      return client.post('/login', { name, password, next: '/' }, '/login');
    },
  };
  const remember = (res: Response) => {
    const set = res.headers.getSetCookie().find((c) => c.startsWith('inbox_session='));
    if (set) client.cookie = set.split(';')[0];
  };
  return client;
}
