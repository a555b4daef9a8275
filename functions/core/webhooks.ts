import { isIP } from 'node:net';
import { BadRequestError } from './errors';

/**
 * Webhooks: a pipeline run (or a view's scheduled refresh) posts its final status to a URL the
 * caller gave, signed so the receiver can tell it came from this service (functions/pipelines/
 * webhooks.ts). Dune notifies on success only; here every end is told: completed, failed, cancelled.
 */

/** Where to post, and who signs: the issuer the receiver verifies the signature against. */
export interface WebhookTarget {
  url: string;
  /** `{base}/oauth/mcp` of the API the run was started through; its JWKS is `{issuer}/jwks.json`. */
  issuer: string;
}

/** How the last notification went. */
export interface WebhookDelivery {
  state: 'delivered' | 'failed';
  attempts: number;
  /** The receiver's last HTTP status, if it answered. */
  statusCode?: number;
  /** Why the last attempt failed. */
  error?: string;
  at: string;
}

export interface WebhookPolicy {
  /**
   * Plain http and any host (a receiver on the developer's machine): the local host only. In AWS a
   * URL must be https to a named host, never an IP literal or localhost: a Lambda function's
   * runtime API answers plain HTTP inside its execution environment, and private addresses are
   * nobody's receiver (docs/aws.md).
   */
  allowInsecureUrls: boolean;
  /** Per attempt. */
  timeoutMs: number;
  /** Waits between attempts; one attempt more than there are delays. */
  retryDelaysMs: readonly number[];
}

export const DEFAULT_WEBHOOK_POLICY: WebhookPolicy = {
  allowInsecureUrls: false,
  timeoutMs: 5000,
  retryDelaysMs: [1000, 4000],
};

const MAX_URL_LENGTH = 2048;

/**
 * The ports fetch refuses to call ("bad port": the WHATWG Fetch standard's list, as Node's fetch
 * has it): a webhook on one could never be delivered.
 */
export const FETCH_BAD_PORTS: ReadonlySet<string> = new Set(
  [
    1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
    109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
    526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
    3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
  ].map(String),
);

/** The URL as it will be called, or a 400 saying what a webhook URL must be. */
export function checkWebhookUrl(text: string, policy: Pick<WebhookPolicy, 'allowInsecureUrls'>): string {
  const refuse = (why: string): never => {
    throw new BadRequestError(`webhook_url ${why}.`);
  };
  if (text.length > MAX_URL_LENGTH) refuse(`is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse(
      `must be an absolute URL such as https://example.com/hooks/dune, got "${text.slice(0, 80)}"`,
    );
  }
  const schemes = policy.allowInsecureUrls ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    refuse(
      `must use ${policy.allowInsecureUrls ? 'http or https' : 'https'}, not ${url.protocol.replace(':', '')}`,
    );
  }
  if (url.username || url.password)
    refuse('must not carry a user name or password; put a token in its path or query');
  if (url.hash) refuse('must not have a #fragment (it is never sent)');
  if (FETCH_BAD_PORTS.has(url.port)) {
    refuse(
      `must not use port ${url.port}: fetch refuses to call it (a "bad port" of the Fetch standard, such as 6000 or 9), so nothing would be delivered; use another port`,
    );
  }
  if (!policy.allowInsecureUrls) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 || host === 'localhost' || host.endsWith('.localhost')) {
      refuse(`must name a public host, not ${url.hostname}`);
    }
  }
  return url.href;
}

/** A webhook a request asked for, its URL checked against the host's policy. */
export function checkWebhook(
  target: WebhookTarget,
  policy: Pick<WebhookPolicy, 'allowInsecureUrls'>,
): WebhookTarget {
  return { url: checkWebhookUrl(target.url, policy), issuer: target.issuer };
}
