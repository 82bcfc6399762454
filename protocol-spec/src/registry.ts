import * as z from 'zod';

/** Metadata of a named protocol type: its name in the JSON Schema and the reference docs. */
export interface TypeMeta {
  id: string;
  description: string;
}

/** Every named type of the protocol, in declaration order. The generators walk this registry. */
export const protocolTypes = z.registry<TypeMeta>();

/** Registers `schema` as the protocol type `id` and returns it unchanged. */
export function named<T extends z.ZodType>(id: string, description: string, schema: T): T {
  protocolTypes.add(schema, { id, description });
  return schema;
}
