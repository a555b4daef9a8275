import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { requestBaseUrl } from '../../functions/http/request-url';

const event = (headers: Record<string, string>, stagePath = '/v1/queries'): APIGatewayProxyEvent =>
  ({ headers, path: '/v1/queries', requestContext: { path: stagePath } }) as unknown as APIGatewayProxyEvent;

describe('requestBaseUrl (next_uri and other absolute links)', () => {
  it('takes the scheme API Gateway forwards, and the stage prefix', () => {
    expect(
      requestBaseUrl(
        event(
          { Host: 'abc.execute-api.eu-west-1.amazonaws.com', 'X-Forwarded-Proto': 'https' },
          '/prod/v1/queries',
        ),
      ),
    ).toBe('https://abc.execute-api.eu-west-1.amazonaws.com/prod');
  });

  it('believes the forwarded scheme whatever the host name and the header case; the first of a chain', () => {
    expect(requestBaseUrl(event({ host: 'vm:3101', 'x-forwarded-proto': 'http' }))).toBe('http://vm:3101');
    expect(requestBaseUrl(event({ HOST: 'vm:3101', 'X-FORWARDED-PROTO': 'https, http' }))).toBe(
      'https://vm:3101',
    );
  });
});
