/**
 * MCP prompts and resources in a Santra prompt (protocol §7.7), done by the server so that every
 * client has them: a prompt text `/mcp__<server>__<prompt> args…` runs that MCP prompt and the
 * model gets the text it returns; a mention `@<server>:<uri>` in a prompt attaches that resource.
 * Both come from servers the user trusted (the user's own, or a project's once trusted); what
 * they return is data for the model, wrapped and bounded, never instructions to Santra.
 *
 * Arguments are the words after the command, in the order the prompt declares its arguments
 * (Claude Code's rule); "quoted words" stay one argument, and words beyond the last argument
 * join it.
 */
import { boundOutput } from './result.ts';

/** A prompt as the server lists it (the SDK's Prompt, reduced to what is used). */
export interface McpPromptSpec {
  name: string;
  description?: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
}

/** The parts of a GetPromptResult message this renders. */
export interface McpPromptMessage {
  role: string;
  content: {
    type: string;
    text?: string;
    mimeType?: string;
    resource?: { uri?: string; text?: string; mimeType?: string };
  };
}

/** The parts of a ReadResourceResult this renders. */
export interface McpResourceContents {
  contents: Array<{ uri?: string; mimeType?: string; text?: string; blob?: string }>;
}

/** The usage line of a prompt command: `/mcp__s__p <file> [focus]`. */
export function promptUsage(command: string, spec: McpPromptSpec): string {
  const args = (spec.arguments ?? []).map((arg) =>
    arg.required === true ? `<${arg.name}>` : `[${arg.name}]`,
  );
  return [command, ...args].join(' ');
}

/**
 * The arguments of `spec` from the words typed after its command; an Error naming what is
 * missing, with the usage, when a required one was not given.
 */
export function promptArguments(command: string, spec: McpPromptSpec, typed: string): Record<string, string> {
  const declared = spec.arguments ?? [];
  const words = splitWords(typed);
  const values: Record<string, string> = {};
  declared.forEach((arg, index) => {
    const last = index === declared.length - 1;
    const value = last ? words.slice(index).join(' ') : words[index];
    if (value !== undefined && value !== '') values[arg.name] = value;
  });
  const missing = declared.filter((arg) => arg.required === true && values[arg.name] === undefined);
  if (missing.length > 0)
    throw new Error(
      `${command} needs ${missing.map((arg) => `<${arg.name}>`).join(' ')}${missing.length === 1 && missing[0]?.description !== undefined ? ` (${missing[0].description})` : ''}: ${promptUsage(command, spec)}`,
    );
  if (declared.length === 0 && words.length > 0)
    throw new Error(`${command} takes no arguments, got "${typed.trim()}": ${promptUsage(command, spec)}`);
  return values;
}

/** Words split on spaces; "double" or 'single' quotes keep spaces inside one word. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g))
    words.push(match[1] ?? match[2] ?? match[3] ?? '');
  return words;
}

/** A prompt's messages as one prompt text: the user's parts as they are, the others labelled. */
export function promptText(messages: readonly McpPromptMessage[], limit: number): string {
  const parts = messages.map((message) => {
    const text = contentText(message.content);
    return message.role === 'user' ? text : `(${message.role}) ${text}`;
  });
  return boundOutput(parts.join('\n\n'), limit).text;
}

function contentText(content: McpPromptMessage['content']): string {
  if (content.type === 'text') return content.text ?? '';
  if (content.type === 'resource' && content.resource?.text !== undefined)
    return `Resource ${content.resource.uri ?? ''}:\n${content.resource.text}`;
  return `[${content.type}${content.mimeType === undefined ? '' : `: ${content.mimeType}`} — not shown]`;
}

/** A resource's contents as text for the model: text parts as they are, binary ones as a note. */
export function resourceText(result: McpResourceContents, limit: number): string {
  const parts = result.contents.map((part) =>
    part.text !== undefined
      ? part.text
      : `[${part.uri ?? 'resource'}: ${part.mimeType ?? 'binary'}, ${part.blob?.length ?? 0} base64 characters — not shown]`,
  );
  return boundOutput(parts.join('\n\n') || '(the resource is empty)', limit).text;
}

/** `@server:uri` mentions in a prompt text, for the servers named in `servers`. */
export function resourceMentions(
  text: string,
  servers: readonly string[],
): Array<{ mention: string; server: string; uri: string }> {
  const found: Array<{ mention: string; server: string; uri: string }> = [];
  for (const match of text.matchAll(/(?<=^|\s)@([A-Za-z0-9_-]+):(\S+)/g)) {
    const server = match[1] ?? '';
    // A sentence's full stop or closing bracket is not part of the URI.
    const uri = (match[2] ?? '').replace(/[.,;:!?)\]}'"]+$/, '');
    if (!servers.includes(server) || uri === '') continue;
    if (found.some((f) => f.server === server && f.uri === uri)) continue;
    found.push({ mention: `@${server}:${uri}`, server, uri });
  }
  return found;
}

/** An attached resource as the model reads it: data from a server, marked as such. */
export function attachedResource(server: string, uri: string, text: string): string {
  return `<mcp_resource server="${server}" uri="${uri.replaceAll('"', '%22')}">\n${text}\n</mcp_resource>`;
}
