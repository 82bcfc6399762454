/**
 * An ACP prompt (content blocks) as the text of a Santra `prompt`. Santra's prompt is text, and
 * its agents read the workspace themselves, so a mentioned file (`resource_link`) becomes its
 * path in the text, and embedded context (`resource`, the editor's copy of a file or selection,
 * unsaved edits included) is named there too and appended in a fenced block the model can read.
 * Images and audio are not advertised in promptCapabilities; a client that sends them anyway is
 * told so.
 *
 * An editor cuts the user's message at each mention, so the text blocks keep the spaces around
 * it ("Explain ", mention, " please"): the parts are joined with a space only where neither side
 * has one.
 */
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk';

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
      case 'resource_link':
        parts.push(`@${displayPath(block.uri, cwd)}`);
        break;
      case 'resource':
        parts.push(`@${displayPath(block.resource.uri, cwd)}`);
        context.push(embedded(block.resource, cwd));
        break;
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
