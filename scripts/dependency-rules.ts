/**
 * The dependency rules of DESIGN.md, checked on import specifiers: protocol-spec imports nothing of
 * ours; tui/ and conformance-tests/ import protocol-spec but never server/ (nor each other); server/
 * never imports a client; and inside server/src only connection/ touches the JSON-RPC transport.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';

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
    from: 'tui/',
    forbidden: 'server/',
    why: 'the TUI is a protocol client: what it needs from the server belongs in the protocol',
  },
  { from: 'tui/', forbidden: 'conformance-tests/', why: 'clients do not depend on each other' },
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
  {
    from: 'server/src/',
    forbidden: 'vscode-languageserver',
    except: ['server/src/connection/', 'server/src/lsp/'],
    why: 'only the connection and the LSP mode speak LSP',
  },
];

export interface Violation {
  file: string;
  specifier: string;
  rule: Rule;
}

const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const SPECIFIERS = [
  /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*['"]([^'"]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
];

/** Every module specifier a source file imports, re-exports or requires. */
export function importSpecifiers(source: string): string[] {
  const found = new Set<string>();
  for (const pattern of SPECIFIERS)
    for (const match of source.matchAll(pattern)) found.add(match[1] as string);
  return [...found];
}

/** A specifier as a root-relative path (for local files and `#` imports) or a package name. */
function target(root: string, file: string, specifier: string, aliases: Record<string, string>): string {
  const alias = aliases[specifier];
  if (alias !== undefined) return relative(root, resolve(root, alias)).split(sep).join('/');
  if (specifier.startsWith('.'))
    return relative(root, resolve(dirname(join(root, file)), specifier))
      .split(sep)
      .join('/');
  return specifier.replace(/^node:/, 'node:');
}

async function sourceFiles(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await sourceFiles(root, path)));
    else if (SOURCE.test(entry.name)) files.push(path);
  }
  return files;
}

export async function findViolations(root: string, rules: Rule[] = RULES): Promise<Violation[]> {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    imports?: Record<string, string>;
  };
  const aliases = pkg.imports ?? {};
  const folders = [...new Set(rules.map((rule) => rule.from.split('/')[0] as string))];
  const violations: Violation[] = [];
  for (const folder of folders) {
    for (const file of await sourceFiles(root, folder)) {
      const source = await readFile(join(root, file), 'utf8');
      for (const specifier of importSpecifiers(source)) {
        const resolved = target(root, file, specifier, aliases);
        for (const rule of rules) {
          if (!file.startsWith(rule.from) || rule.except?.some((prefix) => file.startsWith(prefix))) continue;
          const hit = rule.forbidden.endsWith('/')
            ? resolved.startsWith(rule.forbidden) || `${resolved}/` === rule.forbidden
            : resolved === rule.forbidden || resolved.startsWith(`${rule.forbidden}/`);
          if (hit) violations.push({ file, specifier, rule });
        }
      }
    }
  }
  return violations;
}
