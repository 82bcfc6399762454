/**
 * Validates what a client sends against the published JSON Schema
 * (protocol-spec/schema/santra-protocol.schema.json), with ajv as the server suite does
 * (spec/schema.ts): a client is judged by the document its author had, not by our zod source.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import protocolSchema from '../../../protocol-spec/schema/santra-protocol.schema.json' with { type: 'json' };

const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addSchema(protocolSchema);
const compiled = new Map<string, ValidateFunction>();

/**
 * The problems of `value` against the definition `name` of the protocol schema (e.g.
 * "ApproveResult"), each as `<path>: <what was wrong>`; an empty list means it is valid. `path`
 * names the value in messages, e.g. "result".
 */
export function validateDefinition(name: string, value: unknown, path: string): string[] {
  let validate = compiled.get(name);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `${protocolSchema.$id}#/$defs/${name}` });
    compiled.set(name, validate);
  }
  return validate(value) ? [] : describe(validate.errors ?? [], path);
}

/** The definition a `#/$defs/<Name>` reference names (as methods.json writes them). */
export function definitionName(ref: string): string {
  const match = /^#\/\$defs\/(.+)$/.exec(ref);
  if (match === null) throw new Error(`unsupported schema reference ${ref}: expected #/$defs/<Name>`);
  return match[1] as string;
}

/**
 * ajv's errors as sentences. Under a oneOf every alternative reports its errors; those of the
 * alternatives whose discriminator (a `const`, such as `decision`) the value does not have are
 * noise. Shown are the errors of the alternatives it does fit, or, when it fits none, which values
 * the discriminator may take.
 */
function describe(errors: ErrorObject[], path: string): string[] {
  const where = (e: ErrorObject) => `${path}${e.instancePath.replaceAll('/', '.')}`;
  const branch = (e: ErrorObject) => /\/oneOf\/(\d+)\//.exec(e.schemaPath)?.[1];
  const mismatched = new Set(errors.filter((e) => e.keyword === 'const').map(branch));
  const fitting = errors.filter(
    (e) =>
      e.keyword !== 'oneOf' &&
      e.keyword !== 'anyOf' &&
      (branch(e) === undefined || !mismatched.has(branch(e))),
  );
  if (fitting.length > 0) return [...new Set(fitting.map((e) => sentence(e, where(e))))];
  const allowed = new Map<string, unknown[]>();
  for (const e of errors.filter((e) => e.keyword === 'const'))
    allowed.set(where(e), [...(allowed.get(where(e)) ?? []), e.params.allowedValue]);
  const merged = [...allowed].map(
    ([at, values]) => `${at}: must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`,
  );
  return merged.length > 0 ? merged : [`${path}: does not match the schema`];
}

function sentence(e: ErrorObject, at: string): string {
  if (e.keyword === 'required') return `${at}.${String(e.params.missingProperty)}: required, but missing`;
  if (e.keyword === 'enum')
    return `${at}: must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  if (e.keyword === 'const') return `${at}: must be ${JSON.stringify(e.params.allowedValue)}`;
  return `${at}: ${e.message ?? e.keyword}`;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
