/**
 * An ACP prompt (content blocks) as the text of a Santra `prompt`. Santra's prompt is text, and
 * its agents read the workspace themselves, so a mentioned file (`resource_link`) becomes its
 * path in the text, and embedded context (`resource`, the editor's copy of a file or selection,
 * unsaved edits included) is named there too and appended in a fenced block the model can read.
 * Images and audio are not advertised in promptCapabilities; a client that sends them anyway is
 * told so.
 *
 * What the editor points at also goes as the prompt's context (§7.1.1, promptContext): a mentioned
 * file inside the workspace as a file in view, a selection (Zed's `file:///a.rs#L10:20`) as a
 * selection whose lines the server reads through the buffers the editor lends — so such a
 * selection is named in the text, not copied into it.
 *
 * An editor cuts the user's message at each mention, so the text blocks keep the spaces around
 * it ("Explain ", mention, " please"): the parts are joined with a space only where neither side
 * has one.
 */
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import { type ContextFile, MAX_CONTEXT_FILES, MAX_CONTEXT_RANGES, type PromptContext } from '#protocol';

const TITLE_CHARS = 80;

/** A prompt the adapter cannot pass on; the message says which block and why. */
export class UnsupportedPrompt extends Error {}

export function promptText(blocks: readonly ContentBlock[], cwd: string): string {
  const parts: string[] = [];
  const context: string[] = [];
  blocks.forEach((block, index) => {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'resource_link': {
        const linked = fileIn(block.uri, cwd);
        parts.push(linked?.lines === undefined ? `@${displayPath(block.uri, cwd)}` : mention(linked));
        break;
      }
      case 'resource': {
        const selected = fileIn(block.resource.uri, cwd);
        if (selected?.lines !== undefined) {
          parts.push(mention(selected));
          break;
        }
        parts.push(`@${displayPath(block.resource.uri, cwd)}`);
        context.push(embedded(block.resource, cwd));
        break;
      }
      case 'image':
      case 'audio':
        throw new UnsupportedPrompt(
          `prompt[${index}] is ${block.type === 'image' ? 'an image' : 'audio'}: Santra takes text, mentioned files and embedded text resources (see promptCapabilities)`,
        );
      default: {
        const _exhaustive: never = block;
        throw new UnsupportedPrompt(`prompt[${index}] has an unknown content type`);
      }
    }
  });
  const text = parts.reduce(joined, '').trim();
  if (text === '' && context.length === 0)
    throw new UnsupportedPrompt('the prompt is empty: send at least one text block');
  return context.length === 0 ? text : `${text}\n\n${context.join('\n\n')}`;
}

/** The files the prompt mentions or selects inside the workspace, as the prompt's context. */
export function promptContext(blocks: readonly ContentBlock[], cwd: string): PromptContext | undefined {
  const files: ContextFile[] = [];
  for (const block of blocks) {
    const uri =
      block.type === 'resource_link' ? block.uri : block.type === 'resource' ? block.resource.uri : undefined;
    const file = uri === undefined ? undefined : fileIn(uri, cwd);
    if (file === undefined || files.length >= MAX_CONTEXT_FILES) continue;
    const known = files.find((entry) => entry.path === file.path);
    const entry = known ?? { path: file.path };
    if (known === undefined) files.push(entry);
    if (file.lines !== undefined && (entry.selections?.length ?? 0) < MAX_CONTEXT_RANGES)
      entry.selections = [...(entry.selections ?? []), file.lines];
  }
  return files.length === 0 ? undefined : { files };
}

/** A thread's title from its first prompt's text: the first line, each run of spaces one space. */
export function promptTitle(text: string): string {
  const line = (text.trim().split('\n')[0] ?? '').replace(/\s+/g, ' ').trim();
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

/** `text` and `part` as one, a space between them unless one is already there. */
function joined(text: string, part: string): string {
  return text === '' || /\s$/.test(text) || /^\s/.test(part) ? text + part : `${text} ${part}`;
}

type Resource = Extract<ContentBlock, { type: 'resource' }>['resource'];

function embedded(resource: Resource, cwd: string): string {
  const where = displayPath(resource.uri, cwd);
  if (!('text' in resource))
    return `Attached: ${where} (binary content, not included; read it from the workspace if needed)`;
  // A fence longer than any backtick run inside, so the content cannot close it.
  const longest = Math.max(2, ...(resource.text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `Context from ${where} (as the editor has it):\n${fence}\n${resource.text}\n${fence}`;
}

/**
 * A `file:` URI of a file inside the workspace: its path, as shown, and the lines its fragment
 * selects (`#L10:20`, `#L10-20`, `#L10`; 1-based, inclusive), if it has one.
 */
function fileIn(
  uri: string,
  cwd: string,
): { path: string; shown: string; lines?: { start: { line: number }; end: { line: number } } } | undefined {
  if (!uri.startsWith('file:')) return undefined;
  const [bare = uri, fragment] = uri.split('#', 2);
  let path: string;
  try {
    path = fileURLToPath(bare);
  } catch {
    return undefined;
  }
  const inside = relative(cwd, path);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return undefined;
  const range = /^L(\d+)(?:[:-]L?(\d+))?$/.exec(fragment ?? '');
  const start = Number(range?.[1]);
  const end = Number(range?.[2] ?? range?.[1]);
  const lines =
    range !== null && start >= 1 && end >= start ? { start: { line: start }, end: { line: end } } : undefined;
  return { path, shown: inside, ...(lines === undefined ? {} : { lines }) };
}

/** A selection as the text names it: `@src/a.ts:10-12`, `@src/a.ts:3`. */
function mention(file: {
  shown: string;
  lines?: { start: { line: number }; end: { line: number } };
}): string {
  if (file.lines === undefined) return `@${file.shown}`;
  const { start, end } = file.lines;
  return `@${file.shown}:${start.line === end.line ? start.line : `${start.line}-${end.line}`}`;
}

/** A file URI as a path relative to the session directory when inside it; other URIs as they are. */
function displayPath(uri: string, cwd: string): string {
  if (!uri.startsWith('file:')) return uri;
  let path: string;
  try {
    path = fileURLToPath(uri);
  } catch {
    return uri;
  }
  const inside = relative(cwd, path);
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path;
}
