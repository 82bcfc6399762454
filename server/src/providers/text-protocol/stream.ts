/**
 * Markup in a model's text, read inside the provider layer, so a stream yields the same events
 * whichever channel the model used: answer text, thinking (`<think>`), the model's own status
 * lines (`<status>`, `<next>`) and — for models set up for the text tool-call protocol only
 * (`usesTextToolProtocol`) — tool calls written as `<tool_call>` markup, which join the response's
 * content as tool_call blocks. A native-tool model's `<tool_call>` markup (quoted from a file or a
 * web page) stays answer text and never becomes a call; the native calls of a text-protocol model
 * are dropped, as it was never offered tools natively.
 *
 * The `done` content keeps the text as the model wrote it, markup included: the conversation sent
 * back shows the model its own calls. Calls parsed from text carry no id; the runtime names them
 * (agent/tool-call-ids.ts).
 */
import type { ToolCallBlock } from '../messages.ts';
import type { StreamEvent, StreamFn } from '../stream.ts';
import { usesTextToolProtocol } from '../types.ts';
import { TextProtocolParser, type TextProtocolEvent } from './parser.ts';

/** Wraps a stream function so its text deltas are read for markup (see the header). */
export function readTextMarkup(stream: StreamFn): StreamFn {
  return async function* (endpoint, request) {
    const toolCalls = usesTextToolProtocol(request.model);
    const newParser = () => new TextProtocolParser({ toolCalls });
    let parser = newParser();
    let calls: ToolCallBlock[] = [];
    const events = (parsed: TextProtocolEvent[]) => toStreamEvents(parsed, calls);
    for await (const event of stream(endpoint, request)) {
      switch (event.type) {
        case 'text_delta':
          yield* events(parser.push(event.text));
          break;
        case 'retrying':
          // Nothing of the failed attempt was shown, so the next one starts from a clean slate.
          parser = newParser();
          calls = [];
          yield event;
          break;
        case 'error':
          // What was shown stays shown; a call the failure cut short never runs.
          yield* events(parser.end().filter((e) => e.type !== 'tool_call' && e.type !== 'tool_call_error'));
          yield event;
          return;
        case 'done': {
          yield* events(parser.end());
          const native = toolCalls
            ? event.content.filter((block) => block.type !== 'tool_call')
            : event.content;
          yield { ...event, content: [...native, ...calls] };
          return;
        }
        case 'thinking_delta':
        case 'status':
        case 'tool_call_delta':
        case 'waiting':
          yield event;
          break;
        default: {
          const exhaustive: never = event;
          throw new Error(`unknown stream event ${JSON.stringify(exhaustive)}`);
        }
      }
    }
  };
}

/** Parser events as stream events; tool calls are collected into `calls` for the `done` content. */
function* toStreamEvents(parsed: TextProtocolEvent[], calls: ToolCallBlock[]): Generator<StreamEvent> {
  for (const event of parsed) {
    switch (event.type) {
      case 'text':
        yield { type: 'text_delta', text: event.text };
        break;
      case 'thinking':
        yield { type: 'thinking_delta', text: event.text };
        break;
      case 'status':
        yield { type: 'status', text: event.text };
        break;
      case 'next':
        yield { type: 'status', text: `Next: ${event.text}` };
        break;
      case 'tool_call':
        calls.push({
          type: 'tool_call',
          id: '',
          name: event.name,
          args: event.args,
          argsText: JSON.stringify(event.args),
        });
        break;
      case 'tool_call_error':
        calls.push({
          type: 'tool_call',
          id: '',
          name: event.name ?? 'unknown',
          args: {},
          argsText: event.raw,
          argsError: event.message,
        });
        break;
      default: {
        const exhaustive: never = event;
        throw new Error(`unknown text protocol event ${JSON.stringify(exhaustive)}`);
      }
    }
  }
}
