/**
 * Whether a command that failed inside the sandbox failed because of it: the evidence the kernel
 * and the programs leave in the output (a read-only file system where the command wrote, a name
 * that does not resolve or a network that cannot be reached when the sandbox has none) and what
 * the filtering proxy refused. It reads the output of a failed command only: a command that
 * succeeded was not stopped by the sandbox, whatever it printed.
 *
 * This is a reading of messages, so it can miss a program that says nothing or words it oddly;
 * then the model sees the plain failure, and the user can still set the profile to
 * `danger-full-access` for the session's commands.
 */

export type DenialKind = 'write' | 'network';

export interface SandboxDenial {
  kind: DenialKind;
  /** The line of output, or the destination the proxy refused, that shows it. */
  evidence: string;
}

const WRITE = /read-only file system|\bEROFS\b/i;
const NETWORK = new RegExp(
  [
    'could not resolve host',
    'temporary failure in name resolution',
    'name or service not known',
    'no address associated with hostname',
    'nodename nor servname',
    'getaddrinfo (?:ENOTFOUND|EAI_AGAIN)',
    'network is unreachable',
    '\\bENETUNREACH\\b',
    'unable to resolve host',
    'failed to resolve',
    'could not resolve proxy',
    'name resolution',
  ].join('|'),
  'i',
);
const PROXY = /x-santra-sandbox: blocked|santra's sandbox blocked/i;

/**
 * The denials a failed command's output shows. `network`: whether the sandbox had no network at
 * all (then resolver and unreachable-network errors count); `blocked`: what the proxy refused.
 */
export function findDenials(
  output: string,
  options: { noNetwork: boolean; blocked: readonly string[] },
): SandboxDenial[] {
  const found: SandboxDenial[] = [];
  const seen = new Set<string>();
  for (const raw of output.split('\n')) {
    const line = raw.trim().slice(0, 300);
    if (line === '' || seen.has(line)) continue;
    if (WRITE.test(line)) {
      seen.add(line);
      found.push({ kind: 'write', evidence: line });
    } else if ((options.noNetwork && NETWORK.test(line)) || PROXY.test(line)) {
      seen.add(line);
      found.push({ kind: 'network', evidence: line });
    }
    if (found.length >= 5) break;
  }
  for (const destination of options.blocked)
    found.push({
      kind: 'network',
      evidence: `the proxy refused ${destination} (not in sandbox.allowedDomains)`,
    });
  return found;
}

/** One sentence for the model and the user: what the sandbox stopped. */
export function describeDenials(denials: readonly SandboxDenial[]): string {
  const writes = denials.some((denial) => denial.kind === 'write');
  const network = denials.some((denial) => denial.kind === 'network');
  const what =
    writes && network
      ? 'a write outside the places it may write, and a network connection'
      : writes
        ? 'a write outside the places it may write (the workspace, except protected locations, and the private temp dir)'
        : 'a network connection (the sandbox has no network beyond sandbox.allowedDomains)';
  const evidence = denials
    .slice(0, 3)
    .map((denial) => denial.evidence)
    .join('; ');
  return `The OS sandbox blocked ${what}: ${evidence}`;
}
