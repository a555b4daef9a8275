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
