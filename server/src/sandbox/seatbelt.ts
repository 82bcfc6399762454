/**
 * A profile as a Seatbelt (sandbox-exec) policy on macOS, in the Sandbox Profile Language. Later
 * rules win, so it allows by default, then denies every write and network connection, then
 * allows writing the workspace (in `workspace-write`) and the command's private temp dir, then
 * denies again the protected locations and Santra's config directory (reads too).
 *
 * macOS has no PID namespace: other processes of the user stay visible to `ps`, but Seatbelt
 * denies reading their memory and (`process-info*` on others) their arguments and environment.
 * Not exercised in CI, which runs on Linux; the policy text is tested.
 */
import type { SandboxProfile, SandboxScope } from './profile.ts';

export interface SeatbeltPlan {
  profile: Exclude<SandboxProfile, 'danger-full-access'>;
  scope: SandboxScope;
  /** The command's private temp dir (TMPDIR). */
  tempDir: string;
  /** Existing protected locations inside the writable roots. */
  readOnly: readonly string[];
  /** The filtering proxy's port on 127.0.0.1; undefined: no network. */
  proxyPort?: number;
}

function quoted(path: string): string {
  return `"${path.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

export function seatbeltPolicy(plan: SeatbeltPlan): string {
  const writable =
    plan.profile === 'workspace-write' ? [plan.scope.workspaceRoot, ...plan.scope.allowedDirs] : [];
  const lines = [
    '(version 1)',
    '(allow default)',
    '(deny file-write*)',
    '(deny network*)',
    '(allow network* (remote unix-socket))',
    '(deny process-info* (target others))',
    '(deny mach-priv-task-port)',
    `(allow file-write* ${[...writable, plan.tempDir].map((dir) => `(subpath ${quoted(dir)})`).join(' ')} (literal "/dev/null") (literal "/dev/zero") (regex #"^/dev/tty") (regex #"^/dev/fd/"))`,
  ];
  if (plan.readOnly.length > 0)
    lines.push(`(deny file-write* ${plan.readOnly.map((path) => `(subpath ${quoted(path)})`).join(' ')})`);
  lines.push(`(deny file-read* file-write* (subpath ${quoted(plan.scope.configDir)}))`);
  if (plan.proxyPort !== undefined)
    lines.push(`(allow network-outbound (remote tcp ${quoted(`localhost:${plan.proxyPort}`)}))`);
  return `${lines.join('\n')}\n`;
}
