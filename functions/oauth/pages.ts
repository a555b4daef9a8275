import { OAUTH_SCOPE } from '../core/oauth';
import { escapeHtml } from '../http/html';
import type { ClientLabel } from './clients';

/** Server-rendered pages of the authorization endpoint. Every value is escaped; no script runs. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // No script, no frames (clickjacking), nothing loaded from elsewhere.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;display:flex;justify-content:center}
main{background:#fff;margin:48px 16px;padding:32px;border-radius:8px;max-width:420px;width:100%;box-shadow:0 1px 4px #0002}
h1{font-size:1.3rem;margin-top:0}label{display:block;margin:16px 0 4px}
input[type=email],input[type=password]{width:100%;padding:8px;box-sizing:border-box;font-size:1rem}
button{margin-top:20px;padding:8px 16px;font-size:1rem;cursor:pointer}
.error{color:#a40000;background:#fde8e8;padding:8px;border-radius:4px}.muted{color:#555;font-size:.9rem}
.badge{display:inline-block;font-size:.75rem;font-weight:600;color:#7a4b00;background:#fff3d6;border:1px solid #e0b44c;border-radius:10px;padding:0 8px;vertical-align:middle}
.target{border:2px solid #1f5fbf;background:#eef4ff;border-radius:6px;padding:10px 12px}.target strong{font-size:1.15rem}
code{background:#eee;padding:1px 4px;border-radius:3px}
</style></head><body><main>${body}</main></body></html>`;
}

function hiddenFields(fields: Record<string, string | undefined>): string {
  return Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
}

/** The service a person signs in to, as the pages and the protected resource metadata name it. */
export const SERVICE_NAME = 'Onchain SQL service';

/** On the local host (`npm start`), where the sign-in to use is the one it prints. */
function isLocalHost(): boolean {
  return process.env.SERVICE_RUNTIME === 'local';
}

/** The client's name as it claims it, marked unverified, or with the host that publishes it. */
function clientHtml(client: ClientLabel): string {
  const name = `<strong>${escapeHtml(client.name)}</strong>`;
  if (client.publishedBy) {
    return `${name} <span class="muted">(described by <strong>${escapeHtml(client.publishedBy)}</strong>)</span>`;
  }
  return `${name} <span class="badge" title="Anyone can register an application under any name">unverified</span>`;
}

export function loginPage(input: {
  client: ClientLabel;
  params: Record<string, string | undefined>;
  csrfToken: string;
  email?: string;
  error?: string;
}): string {
  const which = isLocalHost()
    ? `Running locally: use the <strong>Sign-in</strong> email and password that <code>npm start</code> printed.`
    : `Use the email and password of your account's login (an operator sets one with the admin CLI's <code>set-login</code>).`;
  return layout(
    `Sign in · ${SERVICE_NAME}`,
    `<h1>Sign in to ${escapeHtml(SERVICE_NAME)}</h1>
<p>${clientHtml(input.client)} wants to use your ${escapeHtml(SERVICE_NAME)} account.</p>
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="authorize">
${hiddenFields({ ...input.params, csrf_token: input.csrfToken, action: 'login' })}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(input.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p class="muted">${which} An API key (<code>osk_…</code>) does not sign in here.</p>`,
  );
}

export function consentPage(input: {
  client: ClientLabel;
  redirect: { host: string; onThisComputer: boolean };
  accountHandle: string;
  params: Record<string, string | undefined>;
  csrfToken: string;
}): string {
  const client = `<strong>${escapeHtml(input.client.name)}</strong>`;
  const unverified = input.client.publishedBy
    ? ''
    : `\n<p class="muted">"Unverified": the application chose this name itself when it registered, and this service has not checked it. Where it returns to is what identifies it:</p>`;
  const where = input.redirect.onThisComputer ? ' (an application on this computer)' : '';
  return layout(
    `Allow access · ${SERVICE_NAME}`,
    `<h1>Allow access?</h1>
<p>${clientHtml(input.client)} wants access to the ${escapeHtml(SERVICE_NAME)} account <strong>${escapeHtml(input.accountHandle)}</strong>.</p>${unverified}
<p class="target">If you allow, your browser returns to <strong>${escapeHtml(input.redirect.host)}</strong>${where}. Allow only if you are connecting an application there.</p>
<p>Scope: <code>${escapeHtml(OAUTH_SCOPE)}</code>: run and manage queries, results, visualizations and dashboards as you, over MCP and the REST API.</p>
<form method="post" action="authorize">
${hiddenFields({ ...input.params, csrf_token: input.csrfToken })}
<button type="submit" name="action" value="approve">Allow</button>
<button type="submit" name="action" value="deny">Deny</button>
</form>
<p class="muted">To end this access later, disconnect or log out of this server in ${client}: a client that supports token revocation then ends it, and connecting again asks again. Otherwise the service's operator can end it.</p>`,
  );
}

export function errorPage(message: string): string {
  return layout(
    'Authorization error',
    `<h1>This authorization request cannot continue</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p class="muted">Go back to the application and connect again.</p>`,
  );
}
