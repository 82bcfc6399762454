/**
 * The sandbox profiles, with Codex's names, and what a profile asks of the mechanism. A profile
 * says what a command may write and whether it may reach the network; what is always hidden
 * (Santra's config and sessions, the server's process, other users' homes) does not depend on it.
 */

/**
 * - `read-only`: nothing on disk is writable; a private, empty temp dir is (discarded after).
 * - `workspace-write` (the default): the workspace and the user's allowed directories are
 *   writable, except protected locations (`.git/`, `.santra/`, start-up files…); the rest of the
 *   file system is read-only; the temp dir is private.
 * - `danger-full-access`: no sandbox; the command runs with the user's full rights.
 */
export type SandboxProfile = 'read-only' | 'workspace-write' | 'danger-full-access';

export const SANDBOX_PROFILES: readonly SandboxProfile[] = [
  'read-only',
  'workspace-write',
  'danger-full-access',
];

/** What the user configured (config `sandbox`), resolved. */
export interface SandboxSettings {
  /** The profile every command runs under. */
  profile: SandboxProfile;
  /**
   * Hosts commands may reach through the filtering proxy: `example.com`, `*.example.com` (its
   * subdomains), either with `:port`; an IP literal (`127.0.0.1:8080`) to allow a local address.
   * Empty: no network at all.
   */
  allowedDomains: readonly string[];
  /**
   * In `workspace-write`, commands the read-only allowlist does not cover run without asking
   * (still in the sandbox; a protected location is still asked). Off by default.
   */
  autoRun: boolean;
}

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  profile: 'workspace-write',
  allowedDomains: [],
  autoRun: false,
};

/** Where one command runs, and what the sandbox must keep from it. */
export interface SandboxScope {
  /** The workspace root (real path). */
  workspaceRoot: string;
  /** Other directories the user let tools write (real paths): writable in `workspace-write`. */
  allowedDirs: readonly string[];
  /** Santra's config directory (its sessions are inside): hidden whatever the profile. */
  configDir: string;
  /** The user's home: readable; other users' homes are hidden. */
  home: string | undefined;
}
