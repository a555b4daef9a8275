import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { WebhookTarget } from '../core/webhooks';
import { issuerOf } from '../oauth/config';
import { canonicalBaseUrl } from './request-url';

/**
 * A webhook as a request asks for it: the URL, and the issuer of the API (its configured public base URL),
 * which the receiver verifies the signature against (functions/pipelines/webhooks.ts).
 */
export function webhookTargetOf(
  url: string | undefined,
  event: APIGatewayProxyEvent,
): WebhookTarget | undefined {
  return url === undefined ? undefined : { url, issuer: issuerOf(canonicalBaseUrl(event)) };
}
