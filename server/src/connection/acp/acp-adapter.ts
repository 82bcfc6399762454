/** Placeholder until the acp adapter lands (helper at work); refuses to run rather than pretend. */
import type { AdapterOptions } from '../adapters/adapter.ts';

export async function runAcpAdapter(options: AdapterOptions): Promise<number> {
  options.log.error('santra-server acp: not built yet');
  return 2;
}
