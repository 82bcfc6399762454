/**
 * Validates every message a server sends against the generated JSON Schema
 * (protocol-spec/schema/santra-protocol.schema.json) and the method table (methods.json): the
 * JSON-RPC envelope first, then the params or result the method's entry names. JSON Schema, not
 * the zod source, because that is what the spec publishes for implementations in any language, so
 * the suite judges a server by the same document its author had.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import methodTable from '../../../protocol-spec/schema/methods.json' with { type: 'json' };
import protocolSchema from '../../../protocol-spec/schema/santra-protocol.schema.json' with { type: 'json' };

/** A row of the published method table (methods.json). */
interface MethodEntry {
  method: string;
  direction: 'client_to_server' | 'server_to_client' | 'both';
  kind: 'request' | 'notification';
  params: string;
  paramsRequired: boolean;
  result?: string;
  /** A core method (SANTRA-LIFE-005). */
  core?: true;
}

/** The method table by method name: what the suite checks servers and clients against. */
export const METHODS: ReadonlyMap<string, MethodEntry> = new Map(
  (methodTable.methods as MethodEntry[]).map((entry) => [entry.method, entry]),
);

/**
 * The methods every server handles or sends, and lists in `capabilities.methods` (SANTRA-LIFE-005):
 * those methods.json marks `core`, in its order.
 */
export const CORE_METHODS: readonly string[] = [...METHODS.values()]
  .filter((entry) => entry.core === true)
  .map((entry) => entry.method);
const SCHEMA_ID = protocolSchema.$id;
const ref = (pointer: string) => ({ $ref: `${SCHEMA_ID}${pointer}` });
const JSONRPC = { const: '2.0' };
const ID = ref('#/$defs/RequestId');

/** The four shapes of a JSON-RPC 2.0 message, each closed: no member outside the envelope. */
const ENVELOPES = {
  request: {
    type: 'object',
    properties: { jsonrpc: JSONRPC, id: ID, method: { type: 'string', minLength: 1 }, params: {} },
    required: ['jsonrpc', 'id', 'method'],
    additionalProperties: false,
  },
  notification: {
    type: 'object',
    properties: { jsonrpc: JSONRPC, method: { type: 'string', minLength: 1 }, params: {} },
    required: ['jsonrpc', 'method'],
    additionalProperties: false,
  },
  result: {
    type: 'object',
    properties: { jsonrpc: JSONRPC, id: ID, result: {} },
    required: ['jsonrpc', 'id', 'result'],
    additionalProperties: false,
  },
  error: {
    type: 'object',
    properties: {
      jsonrpc: JSONRPC,
      id: { anyOf: [ID, { type: 'null' }] },
      error: ref('#/$defs/ResponseError'),
    },
    required: ['jsonrpc', 'id', 'error'],
    additionalProperties: false,
  },
};

type Envelope = keyof typeof ENVELOPES;

function describe(errors: ErrorObject[] | null | undefined, where: string): string[] {
  return (errors ?? []).map((e) => {
    const detail = e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : '';
    return `${where}${e.instancePath}: ${e.message ?? e.keyword}${detail}`;
  });
}

export class MessageValidator {
  readonly #ajv = new Ajv2020({ allErrors: true, strict: false });
  readonly #envelopes: Record<Envelope, ValidateFunction>;
  readonly #params = new Map<string, ValidateFunction>();
  readonly #results = new Map<string, ValidateFunction>();

  constructor() {
    this.#ajv.addSchema(protocolSchema);
    this.#envelopes = {
      request: this.#ajv.compile(ENVELOPES.request),
      notification: this.#ajv.compile(ENVELOPES.notification),
      result: this.#ajv.compile(ENVELOPES.result),
      error: this.#ajv.compile(ENVELOPES.error),
    };
    for (const entry of METHODS.values()) {
      this.#params.set(entry.method, this.#ajv.compile(ref(entry.params)));
      if (entry.result !== undefined) this.#results.set(entry.method, this.#ajv.compile(ref(entry.result)));
    }
  }

  /**
   * The problems of `message` sent by the server, or none. `methodOf(id)` names the client request
   * a response answers (undefined: none the client sent).
   */
  check(message: Record<string, unknown>, methodOf: (id: string) => string | undefined): string[] {
    const envelope = envelopeOf(message);
    const shape = this.#envelopes[envelope];
    if (!shape(message)) return describe(shape.errors, `${envelope} envelope`);
    if (envelope === 'request' || envelope === 'notification') return this.#checkCall(message, envelope);
    if (envelope === 'error') return [];
    const method = methodOf(String(message.id));
    if (method === undefined)
      return [`a result for id ${JSON.stringify(message.id)}, which no client request has`];
    const result = this.#results.get(method);
    if (result === undefined) return [`a result for ${method}, which has none`];
    return result(message.result) ? [] : describe(result.errors, `${method} result`);
  }

  #checkCall(message: Record<string, unknown>, envelope: 'request' | 'notification'): string[] {
    const method = message.method as string;
    const entry = METHODS.get(method);
    if (entry === undefined) return [`${method} is not a method of the protocol`];
    const problems: string[] = [];
    if (entry.direction === 'client_to_server') problems.push(`${method} goes from client to server only`);
    if (entry.kind !== envelope) problems.push(`${method} is a ${entry.kind}, sent as a ${envelope}`);
    const params = this.#params.get(method) as ValidateFunction;
    if (!params(message.params ?? {})) problems.push(...describe(params.errors, `${method} params`));
    return problems;
  }
}

function envelopeOf(message: Record<string, unknown>): Envelope {
  if (Object.hasOwn(message, 'method')) return Object.hasOwn(message, 'id') ? 'request' : 'notification';
  return Object.hasOwn(message, 'error') ? 'error' : 'result';
}
