import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SignJWT } from 'jose';
import { TERMINAL_PIPELINE_STATES } from '../core/pipelines';
import type { WebhookDelivery, WebhookPolicy, WebhookTarget } from '../core/webhooks';
import { logger } from '../http/logger';
import { SIGNING_ALGORITHM, type SigningKeys } from '../oauth/signing-keys';
import type { Services } from '../services';
import { pipelineStatusResponseOf } from './presenter';

/** The header carrying the signature: a JWT the receiver verifies with the service's JWKS. */
export const WEBHOOK_TOKEN_HEADER = 'x-service-webhook-token';
/** The `event` field of the body, and the token's `typ`. */
export const PIPELINE_FINISHED_EVENT = 'pipeline_execution.finished';
const TOKEN_TYPE = 'webhook+jwt';
/** A token is good for this long: a receiver refuses a replay after it. */
const TOKEN_LIFETIME_SECONDS = 300;

/**
 * Posts a finished pipeline run's status (the body of GET /v1/pipelines/executions/{id}/status,
 * plus `event`) to its webhook, if it has one, and records how that went on the run. At least
 * once: a retried workflow step may post the same end twice, with the same delivery id (`jti`).
 * Callers check that the run has a webhook first: this reads the run again, for its final nodes.
 */
export async function notifyPipelineFinished(services: Services, pipelineExecutionId: string): Promise<void> {
  const run = await services.pipelines.get(pipelineExecutionId);
  const target = run?.execution.webhook;
  if (!run || !target || !TERMINAL_PIPELINE_STATES.includes(run.execution.state)) return;
  const nodes = [...run.nodes].sort((a, b) => a.nodeId - b.nodeId);
  const body = JSON.stringify({
    event: PIPELINE_FINISHED_EVENT,
    ...pipelineStatusResponseOf({ execution: run.execution, nodes }),
  });
  const deliveryId = `${pipelineExecutionId}.${run.execution.state}`;
  const delivery = await deliver(services.signingKeys, services.config.webhooks, target, body, deliveryId);
  if (delivery.state === 'failed') {
    logger.warn('a webhook was not delivered', { pipelineExecutionId, url: target.url, ...delivery });
  }
  await services.pipelines.transition(pipelineExecutionId, TERMINAL_PIPELINE_STATES, {
    webhookDelivery: delivery,
  });
}

/**
 * The signature: an ES256 JWT by the service's OAuth signing keys (published at
 * `{issuer}/jwks.json`) whose `aud` is the webhook URL and whose `body_sha256` is the hex SHA-256
 * of the exact body bytes, so it cannot be replayed to another receiver or with another body.
 */
export async function webhookToken(
  keys: SigningKeys,
  target: WebhookTarget,
  body: string,
  deliveryId: string,
  now = Date.now(),
): Promise<string> {
  const { kid, key } = await keys.signingKey();
  const issuedAt = Math.floor(now / 1000);
  return new SignJWT({ event: PIPELINE_FINISHED_EVENT, body_sha256: sha256Hex(body) })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid, typ: TOKEN_TYPE })
    .setIssuer(target.issuer)
    .setAudience(target.url)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + TOKEN_LIFETIME_SECONDS)
    .setJti(deliveryId)
    .sign(key);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Posts until a 2xx, retrying after the policy's delays when the receiver could not be reached,
 * timed out, or answered 408, 429 or 5xx. Another answer is the receiver's refusal: not retried.
 * Redirects are not followed (the URL that was checked is the URL that is called).
 */
async function deliver(
  keys: SigningKeys,
  policy: WebhookPolicy,
  target: WebhookTarget,
  body: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await post(keys, policy, target, body, deliveryId);
    const at = new Date().toISOString();
    if (outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300) {
      return { state: 'delivered', attempts: attempt, statusCode: outcome.statusCode, at };
    }
    const delay = policy.retryDelaysMs[attempt - 1];
    if (delay === undefined || !outcome.retriable) {
      return {
        state: 'failed',
        attempts: attempt,
        ...(outcome.statusCode !== undefined ? { statusCode: outcome.statusCode } : {}),
        error: outcome.error ?? `the receiver answered HTTP ${outcome.statusCode}`,
        at,
      };
    }
    await sleep(delay);
  }
}

async function post(
  keys: SigningKeys,
  policy: WebhookPolicy,
  target: WebhookTarget,
  body: string,
  deliveryId: string,
): Promise<{ statusCode?: number; retriable: boolean; error?: string }> {
  try {
    const response = await fetch(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'onchain-sql-service-webhooks/1',
        [WEBHOOK_TOKEN_HEADER]: await webhookToken(keys, target, body, deliveryId),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(policy.timeoutMs),
    });
    await response.body?.cancel();
    const status = response.status;
    if (status >= 300 && status < 400) {
      return {
        statusCode: status,
        retriable: false,
        error: `the receiver redirected (HTTP ${status}); redirects are not followed`,
      };
    }
    return { statusCode: status, retriable: status === 408 || status === 429 || status >= 500 };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    return {
      retriable: true,
      error: timedOut
        ? `no answer within ${policy.timeoutMs} ms`
        : `could not reach the receiver (${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message})`,
    };
  }
}
