/** Placeholder until the lsp adapter lands (helper at work); refuses to run rather than pretend. */
import type { AdapterOptions } from '../adapters/adapter.ts';

export async function runLspAdapter(options: AdapterOptions): Promise<number> {
  options.log.error('santra-server lsp: not built yet');
  return 2;
}
