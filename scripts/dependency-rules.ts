/**
 * The dependency rules of CONTRIBUTING.md, checked on the imports the TypeScript parser finds in
 * each file (so an `import` in a comment or a string is not one, and a multi-line or type-only
 * import is).
 *
 * Two kinds of rule. Between the parts of the repository (`RULES`): protocol-spec imports nothing
 * of ours, and only its client library (protocol-spec/client/) the transport; tui/ and
 * conformance-tests/ import protocol-spec but never server/ (nor each other), and the TUI speaks
 * through that client library;
 * server/ never imports a client; only server/src/connection/ touches the JSON-RPC transport.
 * Inside server/src (`LAYERS`): every file lives in the folder of its layer, and each layer
 * imports only what its allow-list names.
 */
import { readdir, readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface Rule {
  /** Files the rule applies to: a path prefix relative to the root, e.g. `tui/`. */
  from: string;
  /** What they may not import: a root-relative path prefix (`server/`) or a package name (`vscode-jsonrpc`). */
  forbidden: string;
  /** Root-relative prefixes exempt from the rule. */
  except?: string[];
  why: string;
}

export const RULES: Rule[] = [
  { from: 'protocol-spec/', forbidden: 'server/', why: 'protocol-spec imports nothing of ours' },
  { from: 'protocol-spec/', forbidden: 'tui/', why: 'protocol-spec imports nothing of ours' },
  { from: 'protocol-spec/', forbidden: 'conformance-tests/', why: 'protocol-spec imports nothing of ours' },
  { from: 'protocol-spec/', forbidden: 'scripts/', why: 'protocol-spec imports nothing of ours' },
  {
    from: 'protocol-spec/src/',
    forbidden: 'vscode-jsonrpc',
    why: 'the schema needs zod alone; the transport belongs to the client library (protocol-spec/client/)',
  },
  {
    from: 'tui/src/',
    forbidden: 'vscode-jsonrpc',
    why: 'a client speaks through the one client library, #protocol/client (protocol-spec/client/)',
  },
  {
    from: 'tui/',
    forbidden: 'server/',
    why: 'the TUI is a protocol client: what it needs from the server belongs in the protocol',
  },
  { from: 'tui/', forbidden: 'conformance-tests/', why: 'clients do not depend on each other' },
  // Inside the TUI: client/ is the layer both front ends (print/ for -p, ui/ for the terminal UI) stand on.
  {
    from: 'tui/src/client/',
    forbidden: 'tui/src/print/',
    why: 'client/ is the protocol client under both front ends; it knows neither',
  },
  {
    from: 'tui/src/client/',
    forbidden: 'tui/src/ui/',
    why: 'client/ is the protocol client under both front ends; it knows neither',
  },
  { from: 'tui/src/print/', forbidden: 'tui/src/ui/', why: 'santra -p does not load the terminal UI' },
  {
    from: 'conformance-tests/',
    forbidden: 'server/',
    why: 'the conformance suite must work against any implementation',
  },
  { from: 'conformance-tests/', forbidden: 'tui/', why: 'clients do not depend on each other' },
  { from: 'server/', forbidden: 'tui/', why: 'the server knows no client' },
  // server/test may use the fake model providers that live with the conformance suite.
  { from: 'server/src/', forbidden: 'conformance-tests/', why: 'the server knows no client' },
  {
    from: 'server/src/',
    forbidden: 'vscode-jsonrpc',
    except: ['server/src/connection/'],
    why: 'only server/src/connection/ touches the transport; handlers get typed params',
  },
  // Each SDK is spoken in the one layer that speaks its protocol (STYLE.md).
  ...sdkRule('openai', 'server/src/providers/', 'the model SDKs live in the provider layer'),
  ...sdkRule('@anthropic-ai/sdk', 'server/src/providers/', 'the model SDKs live in the provider layer'),
  ...sdkRule('@agentclientprotocol/sdk', 'server/src/connection/acp/', 'only the ACP adapter speaks ACP'),
  ...sdkRule('vscode-languageserver', 'server/src/connection/lsp/', 'only the LSP adapter speaks LSP'),
  ...sdkRule('@modelcontextprotocol/sdk', 'server/src/mcp/', 'only the MCP client speaks MCP'),
  ...sdkRule(
    'vscode-languageserver-protocol',
    'server/src/connection/',
    'only the connection speaks JSON-RPC and LSP',
  ),
];

/** An SDK confined to `home`: forbidden to the rest of server/src and to the clients. */
function sdkRule(sdk: string, home: string, why: string): Rule[] {
  return [
    { from: 'server/src/', forbidden: sdk, except: [home], why },
    { from: 'tui/src/', forbidden: sdk, why: `${why}; a client speaks the Santra protocol` },
  ];
}

/** Where the layers live. */
export const LAYERED = 'server/src/';

export interface Layer {
  /** Its folder in server/src, without a slash. */
  folder: string;
  /**
   * What its files may import from server/src besides their own folder: a folder (`support/`) or
   * one file (`runtime/contract.ts`), relative to server/src.
   */
  may: string[];
  /** Why the list is what it is, shown with each import it refuses. */
  why: string;
}

/** The layers of server/src, top of the stack first. */
export const LAYERS: Layer[] = [
  {
    folder: 'entry',
    may: [
      'connection/',
      'runtime/',
      'mcp/',
      'hooks/',
      'skills/',
      'memory/',
      'agent/',
      'sessions/',
      'providers/',
      'tools/',
      'sandbox/',
      'approval/',
      'workspace/',
      'config/',
      'support/',
    ],
    why: 'the process entry is the top of the stack',
  },
  {
    folder: 'connection',
    may: ['runtime/contract.ts', 'support/'],
    why: 'the transport knows the runtime only through its contract',
  },
  {
    folder: 'runtime',
    may: [
      'mcp/',
      'hooks/',
      'skills/',
      'memory/',
      'agent/',
      'sessions/',
      'providers/',
      'tools/',
      'sandbox/',
      'approval/',
      'workspace/',
      'config/',
      'support/',
    ],
    why: 'the runtime wires the parts below it and knows neither JSON-RPC nor the process',
  },
  {
    folder: 'mcp',
    // MCP servers' tools are tools like the others, behind the same gate; the runtime wires them in.
    may: ['tools/', 'sandbox/', 'approval/', 'workspace/', 'config/', 'support/'],
    why: 'the MCP client turns servers into tools; it knows no agent, model or runtime',
  },
  {
    folder: 'hooks',
    // The user's hook commands, run at the agent's one dispatch point; the runtime wires them in.
    may: ['tools/', 'sandbox/', 'approval/', 'workspace/', 'config/', 'support/'],
    why: "hooks run the user's commands around tool calls and runs; they know no agent, model or runtime",
  },
  {
    folder: 'skills',
    // Skills are read here; load_skill (tools/) reads them through the library this layer supplies.
    may: ['tools/', 'workspace/', 'support/'],
    why: 'skills are files the model may load; they know no agent, model, config or runtime',
  },
  {
    folder: 'memory',
    // The background extraction is one model call, through the stream function the runtime passes.
    // tools/: the secret formats run_command scrubs from the environment, used on every write.
    may: ['providers/', 'tools/', 'support/'],
    why: 'memory is two files and what is written to them; it knows no agent, tool or runtime',
  },
  {
    folder: 'agent',
    may: ['hooks/', 'sessions/', 'providers/', 'tools/', 'approval/', 'workspace/', 'config/', 'support/'],
    why: 'the agent is driven by the runtime and knows nothing of how it is wired or served',
  },
  {
    folder: 'sessions',
    may: ['providers/', 'approval/', 'support/'],
    why: 'sessions store the conversation the providers speak, and know no agent, tool or runtime',
  },
  {
    folder: 'providers',
    may: ['support/'],
    why: 'providers speak wire APIs and know no agent, tool, approval, workspace or config',
  },
  {
    folder: 'tools',
    // No tool reads the config: what it needs arrives in its context (runtime/tool-context.ts).
    may: ['sandbox/', 'approval/', 'workspace/', 'support/'],
    why: 'a tool gets its context injected and knows no model, agent, config or runtime',
  },
  {
    folder: 'sandbox',
    // Hooks and MCP servers will spawn through it too, so it sits below the tools.
    may: ['approval/', 'workspace/', 'support/'],
    why: 'the OS sandbox wraps a process spawn; it knows the protected locations and the workspace, nothing above',
  },
  {
    folder: 'approval',
    may: ['workspace/', 'config/', 'support/'],
    why: 'approval judges what tools want to do and knows no tool, agent, model or runtime',
  },
  {
    folder: 'workspace',
    may: ['support/'],
    why: 'confinement and atomic writes stand on Node alone',
  },
  {
    folder: 'config',
    may: ['providers/', 'support/'],
    why: 'the config file names providers and models, and nothing that uses the config',
  },
  { folder: 'support', may: [], why: 'support is the bottom of the stack and imports nothing of server/src' },
];

export interface Import {
  /** As written. */
  specifier: string;
  /** 1-based. */
  line: number;
  /** `import type`, `export type`, an import of named types only, or a type `import('…')`. */
  typeOnly: boolean;
}

export interface ResolvedImport extends Import {
  /** A root-relative path for our own files and `#` imports, else the specifier (a package). */
  target: string;
}

export interface Source {
  /** Root-relative, with forward slashes. */
  file: string;
  lines: number;
  imports: ResolvedImport[];
}

export interface Violation {
  file: string;
  /** 1-based; 0 when the file as a whole is at fault. */
  line: number;
  /** The import as written; empty when the file as a whole is at fault. */
  specifier: string;
  /** What the specifier resolves to (see `ResolvedImport.target`), or the file itself. */
  target: string;
  typeOnly: boolean;
  /** The rule that refused it, e.g. `tui/ -> server/` or `layer agent/`. */
  rule: string;
  why: string;
}

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

/** True when an import binds only types: `import type …`, `import { type A, type B } …`. */
function importsTypesOnly(clause: ts.ImportClause | undefined): boolean {
  if (clause === undefined) return false;
  if (clause.phaseModifier === ts.SyntaxKind.TypeKeyword) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

function exportsTypesOnly(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    clause !== undefined &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((element) => element.isTypeOnly)
  );
}

/** Every module a source file imports, re-exports, imports dynamically, requires or names in a type. */
export function readImports(fileName: string, text: string): Import[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const found: Import[] = [];
  const add = (node: ts.Node | undefined, typeOnly: boolean): void => {
    if (node === undefined || !ts.isStringLiteralLike(node)) return;
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push({ specifier: node.text, line, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, importsTypesOnly(node.importClause));
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, exportsTypesOnly(node));
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression, node.isTypeOnly);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      add(node.argument.literal, true);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    )
      add(node.arguments[0], false);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A specifier as a root-relative path (for local files and `#` imports) or a package name. */
function resolveTarget(
  root: string,
  file: string,
  specifier: string,
  aliases: Record<string, string>,
): string {
  const alias = aliases[specifier];
  const path =
    alias !== undefined
      ? resolve(root, alias)
      : specifier.startsWith('.')
        ? resolve(dirname(join(root, file)), specifier)
        : undefined;
  return path === undefined ? specifier : relative(root, path).split(sep).join('/');
}

/** The root-relative source files under `dir`, skipping node_modules, dist and dot-entries. */
export async function sourceFiles(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await sourceFiles(root, path)));
    else if (SOURCE.test(entry.name)) files.push(path);
  }
  return files.sort();
}

/** The source files of `folders` (root-relative, no trailing slash) with their resolved imports. */
export async function loadSources(root: string, folders: string[]): Promise<Source[]> {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    imports?: Record<string, string>;
  };
  const aliases = pkg.imports ?? {};
  const files = new Set<string>();
  for (const folder of folders) for (const file of await sourceFiles(root, folder)) files.add(file);
  return Promise.all(
    [...files].map(async (file): Promise<Source> => {
      const text = await readFile(join(root, file), 'utf8');
      const imports = readImports(file, text).map((found) => ({
        ...found,
        target: resolveTarget(root, file, found.specifier, aliases),
      }));
      // Lines as `wc -l` counts them, plus an unterminated last line.
      const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      return { file, lines, imports };
    }),
  );
}

function matchesRule(rule: Rule, target: string): boolean {
  return rule.forbidden.endsWith('/')
    ? target.startsWith(rule.forbidden) || `${target}/` === rule.forbidden
    : target === rule.forbidden || target.startsWith(`${rule.forbidden}/`);
}

function checkRules(sources: Source[], rules: Rule[]): Violation[] {
  const violations: Violation[] = [];
  for (const { file, imports } of sources)
    for (const rule of rules) {
      if (!file.startsWith(rule.from) || rule.except?.some((prefix) => file.startsWith(prefix))) continue;
      for (const { specifier, line, typeOnly, target } of imports)
        if (matchesRule(rule, target))
          violations.push({
            file,
            line,
            specifier,
            target,
            typeOnly,
            rule: `${rule.from} -> ${rule.forbidden}`,
            why: rule.why,
          });
    }
  return violations;
}

/**
 * The folder of a path under server/src: its first segment there, `''` for a file directly in
 * server/src, undefined for a path outside it.
 */
export function folderOf(path: string): string | undefined {
  if (!path.startsWith(LAYERED)) return undefined;
  const rest = path.slice(LAYERED.length);
  const slash = rest.indexOf('/');
  return slash === -1 ? '' : rest.slice(0, slash);
}

/** Whether `layer` may import `target` (a root-relative path in server/src of a file in a layer). */
export function mayImport(layer: Layer, target: string): boolean {
  const rest = target.slice(LAYERED.length);
  if (folderOf(target) === layer.folder) return true;
  return layer.may.some((allowed) =>
    allowed.endsWith('/')
      ? rest.startsWith(allowed)
      : rest.replace(SOURCE, '') === allowed.replace(SOURCE, ''),
  );
}

/** Why a file of server/src belongs to no layer, or undefined when it belongs to one. */
export function outsideLayers(file: string, layers: Layer[]): string | undefined {
  const folder = folderOf(file);
  if (folder === undefined) return undefined;
  if (folder === '')
    return 'a file directly in server/src belongs to no layer: find its layer and move it there';
  if (layers.some((layer) => layer.folder === folder)) return undefined;
  return `server/src/${folder}/ is not a layer: move its files into their layers (or add the layer to LAYERS)`;
}

function checkLayers(sources: Source[], layers: Layer[]): Violation[] {
  const byFolder = new Map(layers.map((layer) => [layer.folder, layer]));
  const violations: Violation[] = [];
  for (const { file, imports } of sources) {
    const folder = folderOf(file);
    if (folder === undefined) continue;
    const homeless = outsideLayers(file, layers);
    if (homeless !== undefined) {
      const rule = folder === '' ? 'layer (none)' : `layer ${folder}/`;
      violations.push({ file, line: 0, specifier: '', target: file, typeOnly: false, rule, why: homeless });
      continue;
    }
    const layer = byFolder.get(folder) as Layer;
    for (const { specifier, line, typeOnly, target } of imports) {
      // An import of a file that belongs to no layer is reported once, with that file.
      if (outsideLayers(target, layers) !== undefined || folderOf(target) === undefined) continue;
      if (mayImport(layer, target)) continue;
      const allowed = layer.may.length === 0 ? 'nothing of server/src' : `only ${layer.may.join(', ')}`;
      violations.push({
        file,
        line,
        specifier,
        target,
        typeOnly,
        rule: `layer ${layer.folder}/`,
        why: `${layer.folder}/ may import ${allowed}: ${layer.why}`,
      });
    }
  }
  return violations;
}

export interface Checks {
  /** The rules between the parts of the repository; not checked when absent. */
  rules?: Rule[];
  /** The layers of server/src; not checked when absent. */
  layers?: Layer[];
  /** Packages imported without being declared in package.json (checked in these folders). */
  packages?: string[];
}

/** The folders whose package imports must be declared. */
export const PACKAGE_FOLDERS = ['protocol-spec', 'server', 'tui', 'conformance-tests', 'scripts'];

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined for a path. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#')) return undefined;
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0] as string))
    return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Imports of packages package.json does not declare: they work only while another package pulls
 * them in, and break on the next install that stops doing so.
 */
function checkPackages(sources: Source[], declared: ReadonlySet<string>): Violation[] {
  const violations: Violation[] = [];
  for (const { file, imports } of sources)
    for (const { specifier, line, typeOnly } of imports) {
      const name = packageOf(specifier);
      if (name === undefined || declared.has(name) || declared.has(`@types/${name}`)) continue;
      violations.push({
        file,
        line,
        specifier,
        target: name,
        typeOnly,
        rule: 'package.json',
        why: `${name} is not declared in package.json: add it to dependencies (or devDependencies for tests and scripts)`,
      });
    }
  return violations;
}

/** Every import of the checkout at `root` that breaks a rule or a layer (all of both by default). */
export async function findViolations(
  root: string,
  checks: Checks = { rules: RULES, layers: LAYERS, packages: PACKAGE_FOLDERS },
): Promise<Violation[]> {
  const folders = new Set((checks.rules ?? []).map((rule) => rule.from.split('/')[0] as string));
  if (checks.layers !== undefined) folders.add(LAYERED.slice(0, -1));
  for (const folder of checks.packages ?? []) folders.add(folder);
  const sources = await loadSources(root, [...folders]);
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const declared = new Set([
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.devDependencies ?? {}),
  ]);
  const inPackages = (file: string) =>
    (checks.packages ?? []).some((folder) => file.startsWith(`${folder}/`));
  return [
    ...(checks.rules === undefined ? [] : checkRules(sources, checks.rules)),
    ...(checks.layers === undefined ? [] : checkLayers(sources, checks.layers)),
    ...(checks.packages === undefined
      ? []
      : checkPackages(
          sources.filter((s) => inPackages(s.file)),
          declared,
        )),
  ];
}

/** One line per violation: `file:line: imports "x" (types only) — why [rule]`. */
export function formatViolation(violation: Violation): string {
  const { file, line, specifier, typeOnly, rule, why } = violation;
  if (specifier === '') return `${file}: ${why} [${rule}]`;
  return `${file}:${line}: imports "${specifier}"${typeOnly ? ' (types only)' : ''} — ${why} [${rule}]`;
}
