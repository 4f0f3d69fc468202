"""The kernel structures and numbers of the systems whose answers are read here, defined once (the
readers in `peercred` and `proctable`, the simulation in `simulated`, the tests' recorded answers).
Plain `struct`: on `token`'s path through the agent."""

from __future__ import annotations

import struct

# -- peer credentials of a Unix socket ---------------------------------------------------------------

UCRED = struct.Struct("=iII")  # Linux: struct ucred { pid_t pid; uid_t uid; gid_t gid; }
SOCKPEERCRED = struct.Struct("=IIi")  # OpenBSD: struct sockpeercred { uid_t uid; gid_t gid; pid_t pid; }
SO_PEERCRED_LINUX, SO_PEERCRED_OPENBSD = 17, 0x1022

SOL_LOCAL = 0  # macOS and FreeBSD: the level of the local (Unix) socket options
LOCAL_PEERCRED = 0x001
LOCAL_PEERPID = 0x002  # macOS only
XUCRED_VERSION = 0
XUCRED = struct.Struct("=I I h 2x 16I")  # cr_version, cr_uid, cr_ngroups, (pad), cr_groups[16]
PID = struct.Struct("=i")
XUCRED_PID_AT = XUCRED.size + (8 - XUCRED.size % 8) % 8  # FreeBSD 13+: cr_pid, in a pointer-sized union
XUCRED_WITH_PID = XUCRED_PID_AT + 8

# -- the process table -------------------------------------------------------------------------------

# macOS: struct proc_bsdinfo (sys/proc_info.h), 136 bytes: pbi_flags, pbi_status, pbi_xstatus,
# pbi_pid, pbi_ppid, pbi_uid (5), pbi_gid, pbi_ruid, pbi_rgid, pbi_svuid, pbi_svgid, rfu_1,
# pbi_comm[16] (12), pbi_name[32] (13), pbi_nfiles, pbi_pgid, pbi_pjobc, e_tdev, e_tpgid,
# pbi_nice, pbi_start_tvsec (20), pbi_start_tvusec (21)
BSDINFO = struct.Struct("=5I I 6I 16s 32s 5I i 2Q")
BSDINFO_UID, BSDINFO_COMM, BSDINFO_NAME, BSDINFO_START = 5, 12, 13, 20
PROC_PIDTBSDINFO = 3
CTL_KERN, KERN_ARGMAX, KERN_PROCARGS2, KERN_PROC, KERN_PROC_ARGS = 1, 8, 49, 14, 7
ARGC = struct.Struct("=i")  # KERN_PROCARGS2's first field
