/**
 * A reference point between curl and santra -p: Node and the `openai` SDK reading the same stream
 * and discarding it, with no Santra in between. The gap to curl is the cost of starting Node and
 * parsing SSE and JSON in JavaScript; the gap to santra -p is what Santra adds.
 *
 * The program is plain JavaScript given to `node -e`: a `.ts` file would make Node load its type
 * stripper, which costs time and memory that santra's bundled JavaScript does not pay.
 */

/** The command line that streams the answer to `prompt` from `baseUrl` with the SDK; it exits 1 if no text came. */
export function sdkFloorCommand(baseUrl: string, prompt: string): string[] {
  const sdk = import.meta.resolve('openai');
  const program = `
    import OpenAI from ${JSON.stringify(sdk)};
    const client = new OpenAI({ apiKey: 'sk-bench', baseURL: ${JSON.stringify(baseUrl)}, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: ${JSON.stringify(prompt)} }],
    });
    let chars = 0;
    for await (const chunk of stream) chars += chunk.choices[0]?.delta.content?.length ?? 0;
    if (chars === 0) {
      console.error('sdk floor: the stream carried no text');
      process.exit(1);
    }`;
  return [process.execPath, '--input-type=module', '-e', program];
}
