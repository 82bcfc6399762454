/**
 * The stream function of each wire API, loaded on the first model call: the SDKs weigh more than
 * the rest of the server together, and a server that only answers `initialize` never needs them.
 * A `Record` over WireApi, so a new API is a compile error here until it has its stream function.
 */
import { withOutputBound } from './output-bound.ts';
import type { StreamFn } from './stream.ts';
import { readTextMarkup } from './text-protocol/stream.ts';
import type { WireApi } from './types.ts';

const LOADERS: Record<WireApi, () => Promise<StreamFn>> = {
  anthropic: async () => (await import('./anthropic.ts')).streamAnthropic,
  openai: async () => (await import('./openai.ts')).streamOpenAI,
  'openai-responses': async () => (await import('./openai-responses.ts')).streamOpenAIResponses,
};

/**
 * One entry point for every wire API: the model's `api` picks the stream function (an OpenAI
 * endpoint serves its reasoning models through the Responses API, the others through Chat
 * Completions).
 */
const streamByApi: StreamFn = async function* (endpoint, request) {
  const stream = await LOADERS[request.model.api]();
  yield* stream(endpoint, request);
};

/**
 * A model call as the agent reads it, whatever the API: bounded in size as the wire delivers it
 * (output-bound.ts), then with its text read for markup, so tool calls come out of the stream
 * whichever channel the model used (text-protocol/stream.ts).
 */
export const streamModel: StreamFn = readTextMarkup(withOutputBound(streamByApi));
