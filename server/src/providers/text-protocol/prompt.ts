/**
 * The system-prompt section that teaches a model without native tool calling the markup that
 * parser.ts reads, and the markup in which tool results are sent back to it.
 */

/** A tool as the model sees it: `parameters` is the JSON Schema of its arguments object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * Returns the system-prompt section listing `tools` and teaching the markup with one worked
 * example. Deterministic: the same tools give the same text (prompt caches rely on it).
 */
export function textProtocolInstructions(tools: ToolSpec[]): string {
  const toolList =
    tools.length === 0 ? 'There are no tools available right now.' : tools.map(describeTool).join('\n\n');
  return `# Tools

This connection has no native tool calling. To use a tool, write a tool call as markup in your reply; Santra runs the tool and sends you the result.

Available tools, each with the JSON Schema of its arguments:

${toolList}

# Reply format

Everything outside the tags below is your answer to the user, in Markdown.
- <think>...</think>: your private reasoning. Optional; put it first.
- <status>...</status>: one present-tense line of at most 14 words saying what you are doing now.
- <next>...</next>: the next action, label first (for example "Edit: change greet() to take a name"), at most 100 words.
- <tool_call name="TOOL_NAME">ARGUMENTS</tool_call>: calls the tool TOOL_NAME. ARGUMENTS is one JSON object matching that tool's schema.

Rules for tool calls:
- Arguments must be strict JSON: keys and strings in double quotes, \\" for a quote and \\n for a line break inside a string, no trailing commas, no comments, true/false/null in lower case. Write {} when a tool takes no arguments.
- Call only the tools listed above, by their exact names.
- One or more tool calls may follow each other; they run in order.
- After your last tool call, stop and wait. Write nothing after it and never invent a result: the results arrive in the next user message, one per call, as <tool_result id="call_1" name="read_file">...</tool_result>, with error="true" when the tool failed. If a result itself contains </tool_result>, its tags are numbered instead: <tool_result-2 ...>...</tool_result-2>.
- If an argument must contain the text </tool_call>, write it as <\\/tool_call> inside the JSON string.
- When you need no more tools, give your answer without any tool call.

# Example

The user asks: "Make greet() in src/greet.ts take a name."
You reply:
<think>I need to see the current greet() before changing it.</think>
<status>Reading src/greet.ts to find greet()</status>
<next>Edit: change greet() to take a name parameter and use it in the greeting</next>
<tool_call name="read_file">{"path": "src/greet.ts"}</tool_call>

and stop. The next user message carries the result:
<tool_result id="call_1" name="read_file">
export function greet() { return 'Hello!'; }
</tool_result>

(The tool and the file in this example are made up; call only the tools listed above.)`;
}

/**
 * Formats one tool result for the next user message. The output is not escaped; if it contains
 * the closing tag, the tag name gets a number the output does not contain, so the end stays
 * unambiguous.
 */
export function formatToolResult(id: string, name: string, output: string, isError: boolean): string {
  let tag = 'tool_result';
  for (let n = 2; output.includes(`</${tag}>`); n++) tag = `tool_result-${n}`;
  const error = isError ? ' error="true"' : '';
  return `<${tag} id="${attribute(id)}" name="${attribute(name)}"${error}>\n${output}\n</${tag}>`;
}

function describeTool(tool: ToolSpec): string {
  const { $schema: _ignored, ...schema } = tool.parameters;
  return `## ${tool.name}\n${tool.description.trim()}\nArguments: ${JSON.stringify(schema)}`;
}

/** Names come from the model and may be anything; keep the tag itself well formed. */
function attribute(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('"', '&quot;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}
