/**
 * `santra doctor`: whether Santra's OS sandbox works on this machine, as the server found it
 * (`initialize`'s `capabilities.sandbox`), and when it does not, why and the fix — bubblewrap
 * missing, Ubuntu's AppArmor restriction on user namespaces, a container without them. Exits 0
 * when commands are sandboxed, 1 when not (so `:checkhealth santra` and scripts can tell).
 * `--json` prints the server's `SandboxInfo` as it came.
 */
import type { SandboxInfo } from '#protocol';

export interface DoctorReport {
  ok: boolean;
  text: string;
  json: SandboxInfo | { available: false; problem: string; fix: string };
}

const MECHANISM: Record<NonNullable<SandboxInfo['mechanism']>, string> = {
  bubblewrap: 'bubblewrap (Linux: user, PID, network and mount namespaces, seccomp)',
  seatbelt: 'Seatbelt (macOS sandbox-exec)',
};

/** The report for what the server said; undefined: a server too old to say. */
export function doctorReport(sandbox: SandboxInfo | undefined): DoctorReport {
  if (sandbox === undefined) {
    const problem = 'this santra-server does not report an OS sandbox (it predates protocol 0.3.0).';
    const fix = 'Install a matching santra and santra-server.';
    return {
      ok: false,
      text: `Sandbox: no — ${problem}\nFix: ${fix}\n`,
      json: { available: false, problem, fix },
    };
  }
  const lines: string[] = [];
  if (sandbox.available) {
    lines.push(`Sandbox: yes, ${sandbox.mechanism === undefined ? 'on' : MECHANISM[sandbox.mechanism]}`);
    lines.push(
      `Profile: ${sandbox.profile}${sandbox.profile === 'danger-full-access' ? ' (commands run unsandboxed, as configured)' : ''}`,
    );
  } else {
    lines.push(`Sandbox: no — ${sandbox.problem ?? 'unavailable'}`);
    lines.push(`Fix: ${sandbox.fix ?? 'see docs/security.md'}`);
    lines.push('Until then commands run with your full rights, and each one is asked.');
  }
  lines.push(
    `Network: ${sandbox.allowedDomains.length === 0 ? 'off' : `only ${sandbox.allowedDomains.join(', ')} (through the filtering proxy)`}`,
  );
  lines.push(
    `Unlisted commands run unasked in the sandbox: ${sandbox.autoRun ? 'yes (sandbox.autoRun)' : 'no'}`,
  );
  for (const note of sandbox.notes ?? []) lines.push(`Note: ${note}`);
  return { ok: sandbox.available, text: `${lines.join('\n')}\n`, json: sandbox };
}
