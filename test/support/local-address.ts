import { request } from 'node:http';

export interface PlainResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * An HTTP request from a chosen local address (fetch cannot pick one): on Linux every 127.x.y.z
 * is loopback, so a test can be several clients to the local host, which takes the socket's
 * address as the client's (API Gateway's sourceIp in AWS).
 */
export function requestFrom(
  localAddress: string,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: init.method, localAddress, headers: init.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}
