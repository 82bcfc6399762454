/**
 * The seccomp filter every sandboxed command runs under on Linux, as a classic BPF program that
 * bubblewrap installs (`--seccomp FD`). Namespaces already take the network, the mounts and the
 * other processes away; this removes the few kernel interfaces that namespaces do not isolate or
 * that are a known source of kernel exploits, as Docker's default profile does:
 *
 * - the kernel keyrings (`keyctl`, `add_key`, `request_key`): they are per user, not per
 *   namespace, so a command could read keys (credentials) the user's session keeps there;
 * - io_uring, which bypasses the seccomp filter for the operations it performs;
 * - `bpf`, `perf_event_open`, `userfaultfd`, module loading, kexec, `acct`, swap, `reboot`.
 *
 * They fail with EPERM. A process of another architecture than the filter's (a 32-bit program
 * through the compatibility entry points, the x32 ABI) is refused every system call, so the list
 * cannot be dodged through other syscall numbers.
 *
 * Written by hand rather than through libseccomp: the program is twenty-odd instructions, and
 * bubblewrap only needs the bytes.
 */
import { arch } from 'node:process';

// <linux/filter.h>, <linux/seccomp.h>, <linux/audit.h>.
const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
/** Offsets in `struct seccomp_data`. */
const NR = 0;
const ARCH = 4;
const X32_SYSCALL_BIT = 0x40000000;

interface ArchTable {
  audit: number;
  /** Syscall numbers denied with EPERM. */
  denied: Record<string, number>;
}

const TABLES: Partial<Record<NodeJS.Architecture, ArchTable>> = {
  x64: {
    audit: 0xc000003e,
    denied: {
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      kexec_load: 246,
      kexec_file_load: 320,
      acct: 163,
      swapon: 167,
      swapoff: 168,
      reboot: 169,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    denied: {
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      kexec_load: 104,
      kexec_file_load: 294,
      acct: 89,
      swapon: 224,
      swapoff: 225,
      reboot: 142,
    },
  },
};

/** The syscall numbers the filter denies on this machine's architecture (for tests and docs). */
export function deniedSyscalls(architecture: NodeJS.Architecture = arch): Record<string, number> | undefined {
  return TABLES[architecture]?.denied;
}

/**
 * The filter for `architecture` as the bytes of a `struct sock_filter[]` (8 bytes per
 * instruction, this machine's byte order), or undefined where there is no table (then commands
 * run without a filter, and the status says so).
 */
export function seccompProgram(architecture: NodeJS.Architecture = arch): Buffer | undefined {
  const table = TABLES[architecture];
  if (table === undefined) return undefined;
  const numbers = Object.values(table.denied);
  type Instruction = [code: number, jt: number, jf: number, k: number];
  const program: Instruction[] = [
    [BPF_LD_W_ABS, 0, 0, ARCH],
    // Another architecture: every call fails (jump to the last instruction but one).
    [BPF_JMP_JEQ_K, 1, 0, table.audit],
    [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS],
    [BPF_LD_W_ABS, 0, 0, NR],
  ];
  if (architecture === 'x64') program.push([BPF_JMP_JGE_K, numbers.length + 1, 0, X32_SYSCALL_BIT]);
  numbers.forEach((nr, index) => {
    // Equal: jump over the remaining comparisons and the allow, to the deny.
    program.push([BPF_JMP_JEQ_K, numbers.length - index, 0, nr]);
  });
  program.push([BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  program.push([BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], index) => {
    const offset = index * 8;
    bytes.writeUInt16LE(code, offset);
    bytes.writeUInt8(jt, offset + 2);
    bytes.writeUInt8(jf, offset + 3);
    bytes.writeUInt32LE(k >>> 0, offset + 4);
  });
  return bytes;
}
