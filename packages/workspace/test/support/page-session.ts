// Logging in to the page over plain HTTP, as a browser's form would: the login form's token and
// its cookie first, then the session cookie and the session's form token.

const FORM_TOKEN = /<input type="hidden" name="csrf" value="([^"]+)">/;

/** The form token a served page carries in its POST forms. */
export function formTokenIn(page: string): string {
  const match = FORM_TOKEN.exec(page);
  if (!match) throw new Error('The page carries no form token');
  return match[1]!;
}

/** The name=value part of a Set-Cookie header, by the cookie's name. */
export function cookieFrom(res: Response, name: string): string | undefined {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith(`${name}=`));
}

/** GET /ui/login: the login cookie and the token its form carries. */
export async function loginForm(url: string): Promise<{ cookie: string; formToken: string }> {
  const res = await fetch(`${url}/ui/login`);
  const cookie = cookieFrom(res, 'weft_login');
  if (!cookie) throw new Error('The login form set no login cookie');
  return { cookie, formToken: formTokenIn(await res.text()) };
}

/** POST /ui/login as the login form does; answers the raw response. */
export async function postLogin(url: string, token: string): Promise<Response> {
  const form = await loginForm(url);
  return fetch(`${url}/ui/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
    body: new URLSearchParams({ token, csrf: form.formToken }).toString(),
    redirect: 'manual',
  });
}

/** Logs in: the session cookie and the session's form token (read from /ui). */
export async function logIn(url: string, token: string): Promise<{ cookie: string; formToken: string }> {
  const res = await postLogin(url, token);
  const cookie = cookieFrom(res, 'weft_page');
  if (res.status !== 303 || !cookie) throw new Error(`The login answered ${res.status}`);
  const overview = await fetch(`${url}/ui`, { headers: { cookie } });
  return { cookie, formToken: formTokenIn(await overview.text()) };
}
