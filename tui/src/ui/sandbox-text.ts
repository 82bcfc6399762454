/**
 * The sandbox line of /status: whether commands run in the server's OS sandbox, under which
 * profile, and, when they do not, why (the fix is `santra doctor`'s to tell at length).
 */
import type { SandboxInfo } from '#protocol';

export function sandboxStatusText(sandbox: SandboxInfo | undefined): string {
  if (sandbox === undefined) return 'Sandbox: (the server does not say)';
  if (!sandbox.available)
    return `Sandbox: none — ${sandbox.problem ?? 'unavailable'} Each command is asked; \`santra doctor\` tells the fix.`;
  const network =
    sandbox.allowedDomains.length === 0 ? 'no network' : `network to ${sandbox.allowedDomains.join(', ')}`;
  const autoRun = sandbox.autoRun ? ', unlisted commands run unasked' : '';
  return `Sandbox: ${sandbox.mechanism ?? 'on'}, ${sandbox.profile}, ${network}${autoRun}`;
}
