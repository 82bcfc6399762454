import { ResponseErrorObject } from './errors.ts';
import { isMethodName, type MethodSpec, methods } from './methods.ts';

export type Side = 'client' | 'server';

/**
 * Checks the messages of one exchange against the method table, in order: each request or
 * notification must be a known method sent in its direction with params that pass its schema, and
 * each response must answer a pending request of the other side with a valid result or error.
 * Used by the tests on the example exchanges and by clients that want to check a peer.
 */
export class ExchangeValidator {
  readonly #pending: Record<Side, Map<string, string>> = { client: new Map(), server: new Map() };

  /** Returns the problems found in `message` sent by `from`; an empty list means it is valid. */
  check(from: Side, message: unknown): string[] {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return ['a message must be a JSON object'];
    }
    const m = message as Record<string, unknown>;
    if (m.jsonrpc !== '2.0') return ['"jsonrpc" must be "2.0"'];
    if (typeof m.method === 'string') return this.#checkCall(from, m);
    return this.#checkResponse(from, m);
  }

  #checkCall(from: Side, m: Record<string, unknown>): string[] {
    const method = m.method as string;
    if (!isMethodName(method)) return [`unknown method ${method}`];
    const spec: MethodSpec = methods[method];
    const problems: string[] = [];
    const allowed =
      spec.direction === 'both' || spec.direction === `${from}_to_${from === 'client' ? 'server' : 'client'}`;
    if (!allowed) problems.push(`${method} is ${spec.direction}, but the ${from} sent it`);
    const isRequest = Object.hasOwn(m, 'id');
    if (isRequest !== (spec.kind === 'request')) problems.push(`${method} is a ${spec.kind}`);
    if (isRequest) {
      if (typeof m.id !== 'string' && !Number.isInteger(m.id))
        problems.push('a request id must be an integer or a string');
      else this.#pending[from].set(String(m.id), method);
    }
    const parsed = spec.params.safeParse(m.params ?? undefined);
    if (!parsed.success)
      problems.push(...parsed.error.issues.map((i) => `${method} params.${i.path.join('.')}: ${i.message}`));
    return problems;
  }

  #checkResponse(from: Side, m: Record<string, unknown>): string[] {
    const requester: Side = from === 'client' ? 'server' : 'client';
    const hasResult = Object.hasOwn(m, 'result');
    const hasError = Object.hasOwn(m, 'error');
    if (hasResult === hasError) return ['a response has exactly one of "result" and "error"'];
    if (hasError) {
      const parsed = ResponseErrorObject.safeParse(m.error);
      if (typeof m.id === 'string' || typeof m.id === 'number') this.#pending[requester].delete(String(m.id));
      return parsed.success ? [] : parsed.error.issues.map((i) => `error.${i.path.join('.')}: ${i.message}`);
    }
    const method =
      typeof m.id === 'string' || typeof m.id === 'number'
        ? this.#pending[requester].get(String(m.id))
        : undefined;
    if (method === undefined)
      return [`response ${JSON.stringify(m.id)} answers no pending ${requester} request`];
    this.#pending[requester].delete(String(m.id));
    const schema = (methods as Record<string, MethodSpec>)[method]?.result;
    if (schema === undefined) return [`${method} has no result`];
    const parsed = schema.safeParse(m.result);
    return parsed.success
      ? []
      : parsed.error.issues.map((i) => `${method} result.${i.path.join('.')}: ${i.message}`);
  }
}
