/**
 * The Santra protocol: every message, defined once as zod schemas. Servers validate with these,
 * clients type their calls from them, and the JSON Schema and reference docs are generated from
 * them. The normative text is ../README.md.
 */
export * from './agents.ts';
export * from './approval.ts';
export * from './ask.ts';
export * from './common.ts';
export * from './context.ts';
export * from './editor.ts';
export * from './envelope.ts';
export * from './errors.ts';
export * from './hooks.ts';
export * from './skills.ts';
export * from './memory.ts';
export * from './lifecycle.ts';
export * from './mcp.ts';
export * from './methods.ts';
export * from './models.ts';
export * from './prompt.ts';
export * from './records.ts';
export * from './sessions.ts';
export { protocolTypes, type TypeMeta } from './registry.ts';
export * from './validate.ts';
export * from './version.ts';
