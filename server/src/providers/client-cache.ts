import type { ProviderEndpoint } from './types.ts';

/**
 * One SDK client per endpoint and key, reused across calls (connection pooling). The SDKs' own
 * retries are turned off by the callers: Santra retries itself, with its own cap on waits and a
 * limiter shared by every agent (resilience.ts).
 */
export function clientCache<T>(create: (endpoint: ProviderEndpoint) => T): (endpoint: ProviderEndpoint) => T {
  const clients = new Map<string, T>();
  return (endpoint) => {
    const key = `${endpoint.baseUrl}\n${endpoint.apiKey ?? ''}`;
    let client = clients.get(key);
    if (client === undefined) {
      client = create(endpoint);
      clients.set(key, client);
    }
    return client;
  };
}
