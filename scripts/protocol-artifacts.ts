/**
 * Everything generated from the zod source of the protocol: the JSON Schema, the machine-readable
 * method table, the reference tables in docs/protocol-reference.md and the example sequences in
 * protocol-spec/README.md. Rendering is pure (the same source gives the same bytes), so a check can
 * compare it with what is checked in.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import {
  errorCatalog,
  type MethodSpec,
  methods,
  PROTOCOL_VERSION,
  protocolTypes,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '#protocol';
import { loadExamples, renderExample } from './examples.ts';
import { renderToolDocs, TOOLS_FILE } from './tool-docs.ts';

type JsonSchema = { [key: string]: unknown };

export const SCHEMA_FILE = 'protocol-spec/schema/santra-protocol.schema.json';
export const METHODS_FILE = 'protocol-spec/schema/methods.json';
export const REFERENCE_FILE = 'docs/protocol-reference.md';
export const SPEC_FILE = 'protocol-spec/README.md';

/** Named types of the protocol, keyed by id, in registry order. */
function namedTypes(): Map<string, { schema: z.ZodType; description: string }> {
  const types = new Map<string, { schema: z.ZodType; description: string }>();
  for (const [id, schema] of protocolTypes._idmap) {
    const meta = protocolTypes.get(schema);
    types.set(id, { schema: schema as z.ZodType, description: meta?.description ?? '' });
  }
  return types;
}

function typeIdOf(schema: z.ZodType): string {
  const id = protocolTypes.get(schema)?.id;
  if (id === undefined)
    throw new Error('every params and result schema of the method table must be a named type');
  return id;
}

export function renderJsonSchema(): JsonSchema {
  const generated = z.toJSONSchema(protocolTypes, { uri: (id) => `#/$defs/${id}`, io: 'input' }).schemas;
  const defs: Record<string, JsonSchema> = {};
  for (const [id, { description }] of namedTypes()) {
    const { $schema: _schema, $id: _id, ...body } = generated[id] as JsonSchema;
    defs[id] = { description, ...body };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `https://santra.dev/protocol/${PROTOCOL_VERSION}/santra-protocol.schema.json`,
    title: `Santra protocol ${PROTOCOL_VERSION}`,
    description:
      'Every type of the Santra protocol. Generated from protocol-spec/src (zod) by scripts/generate-protocol.ts; do not edit.',
    $defs: defs,
  };
}

export function renderMethodTable(): JsonSchema {
  return {
    protocolVersion: PROTOCOL_VERSION,
    supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
    schema: 'santra-protocol.schema.json',
    methods: Object.entries(methods as Record<string, MethodSpec>).map(([name, spec]) => ({
      method: name,
      direction: spec.direction,
      kind: spec.kind,
      params: `#/$defs/${typeIdOf(spec.params)}`,
      paramsRequired: paramsRequired(spec),
      ...(spec.result === undefined ? {} : { result: `#/$defs/${typeIdOf(spec.result)}` }),
      since: spec.since,
      stability: spec.stability,
      summary: spec.summary,
      ...(spec.core === true ? { core: true } : {}),
    })),
    errors: errorCatalog.map(({ name, code, retryable, description }) => ({
      name,
      code,
      retryable,
      description,
    })),
  };
}

const DIRECTION: Record<MethodSpec['direction'], string> = {
  client_to_server: 'client → server',
  server_to_client: 'server → client',
  both: 'both ways',
};

const anchor = (id: string) => `[${id}](#${id.toLowerCase()})`;
const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** A short human-readable type for a JSON Schema fragment, linking named types. */
function typeLabel(schema: JsonSchema): string {
  if (typeof schema.$ref === 'string') return anchor(schema.$ref.replace('#/$defs/', ''));
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (Array.isArray(schema.enum))
    return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(' \\| ');
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (union !== undefined) return union.map(typeLabel).join(' \\| ');
  if (schema.type === 'array') return `${typeLabel((schema.items ?? {}) as JsonSchema)}[]`;
  if (schema.type === 'object' && schema.properties === undefined) return 'object';
  if (typeof schema.type === 'string') return schema.type;
  return 'any';
}

function fieldTable(schema: JsonSchema): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (names.length === 0) return ['No fields.'];
  return [
    '| Field | Type | Required | Description |',
    '| --- | --- | --- | --- |',
    ...names.map((name) => {
      const field = properties[name] as JsonSchema;
      const description = typeof field.description === 'string' ? field.description : '';
      return `| \`${name}\` | ${typeLabel(field)} | ${required.has(name) ? 'yes' : 'no'} | ${cell(description)} |`;
    }),
  ];
}

/** Named types in reading order: as first reached from the method table, then the rest. */
function typeOrder(defs: Record<string, JsonSchema>): string[] {
  const order: string[] = [];
  const visit = (id: string) => {
    if (order.includes(id) || defs[id] === undefined) return;
    order.push(id);
    for (const match of JSON.stringify(defs[id]).matchAll(/"#\/\$defs\/([A-Za-z]+)"/g))
      visit(match[1] as string);
  };
  for (const spec of Object.values(methods as Record<string, MethodSpec>)) {
    visit(typeIdOf(spec.params));
    if (spec.result !== undefined) visit(typeIdOf(spec.result));
  }
  for (const id of Object.keys(defs)) visit(id);
  return order;
}

function renderTypes(jsonSchema: JsonSchema): string {
  const defs = jsonSchema.$defs as Record<string, JsonSchema>;
  const sections = typeOrder(defs).map((id) => {
    const schema = defs[id] as JsonSchema;
    const lines = [`### ${id}`, '', typeof schema.description === 'string' ? schema.description : '', ''];
    const variants = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
    if (variants?.every((variant) => variant.type === 'object')) {
      for (const variant of variants) {
        const properties = variant.properties as Record<string, JsonSchema>;
        const tag = Object.entries(properties).find(([, field]) => field.const !== undefined);
        lines.push(
          tag === undefined ? '#### variant' : `#### \`${tag[0]}: ${JSON.stringify(tag[1].const)}\``,
          '',
        );
        lines.push(...fieldTable(variant), '');
      }
    } else if (schema.type === 'object') {
      lines.push(...fieldTable(schema), '');
    } else {
      lines.push(`Type: ${typeLabel(schema)}`, '');
    }
    return lines.join('\n');
  });
  return sections.join('\n').trimEnd();
}

/** Whether a message of this method must carry `params` (absent or null params fail its schema). */
function paramsRequired(spec: MethodSpec): boolean {
  return !spec.params.safeParse(undefined).success;
}

function renderMethodRows(): string {
  return [
    '| Method | Direction | Kind | Params | Result | Since | Stability | Summary |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...Object.entries(methods as Record<string, MethodSpec>).map(
      ([name, spec]) =>
        `| \`${name}\` | ${DIRECTION[spec.direction]} | ${spec.kind} | ${anchor(typeIdOf(spec.params))}${
          paramsRequired(spec) ? '' : ' (may be omitted)'
        } | ${
          spec.result === undefined ? '—' : anchor(typeIdOf(spec.result))
        } | ${spec.since} | ${spec.stability} | ${cell(spec.summary)} |`,
    ),
  ].join('\n');
}

function renderErrorRows(): string {
  return [
    '| Code | Name | `data.retryable` | Meaning |',
    '| --- | --- | --- | --- |',
    ...errorCatalog.map(
      ({ code, name, retryable, description }) =>
        `| ${code} | ${name} | ${retryable} | ${cell(description)} |`,
    ),
  ].join('\n');
}

/** Replaces the body of every `<!-- AUTOGEN:name -->…<!-- /AUTOGEN -->` block. */
export function splice(document: string, file: string, sections: Record<string, string>): string {
  const seen = new Set<string>();
  const result = document.replace(
    /(<!-- AUTOGEN:([\w -]+?) -->\n)[\s\S]*?(<!-- \/AUTOGEN -->)/g,
    (_match, open: string, name: string, close: string) => {
      const body = sections[name];
      if (body === undefined) throw new Error(`${file}: unknown AUTOGEN section "${name}"`);
      seen.add(name);
      return `${open}${body}\n${close}`;
    },
  );
  const missing = Object.keys(sections).filter((name) => !seen.has(name));
  if (missing.length > 0) throw new Error(`${file}: no AUTOGEN block for ${missing.join(', ')}`);
  return result;
}

/** Renders every generated file from the zod source and the hand-written templates under `root`. */
export async function renderArtifacts(root: string): Promise<Map<string, string>> {
  const jsonSchema = renderJsonSchema();
  const reference = await readFile(join(root, REFERENCE_FILE), 'utf8');
  const spec = await readFile(join(root, SPEC_FILE), 'utf8');
  const examples = await loadExamples(join(root, 'protocol-spec/examples'));
  const exampleSections = Object.fromEntries(
    examples.map((example) => [`example ${example.name}`, renderExample(example)]),
  );
  return new Map([
    [SCHEMA_FILE, `${JSON.stringify(jsonSchema, null, 2)}\n`],
    [METHODS_FILE, `${JSON.stringify(renderMethodTable(), null, 2)}\n`],
    [
      REFERENCE_FILE,
      splice(reference, REFERENCE_FILE, {
        version: `Protocol version **${PROTOCOL_VERSION}**; a server built from this source accepts ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`,
        methods: renderMethodRows(),
        errors: renderErrorRows(),
        types: renderTypes(jsonSchema),
      }),
    ],
    [SPEC_FILE, splice(spec, SPEC_FILE, exampleSections)],
    [TOOLS_FILE, renderToolDocs()],
  ]);
}

/** Files whose checked-in content differs from what the source renders. */
export async function staleArtifacts(root: string): Promise<string[]> {
  const stale: string[] = [];
  for (const [file, content] of await renderArtifacts(root)) {
    const current = await readFile(join(root, file), 'utf8').catch(() => undefined);
    if (current !== content) stale.push(file);
  }
  return stale;
}
