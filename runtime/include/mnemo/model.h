/* What the engine's model of the machine answers, shared by the C
 * library's system calls (musl/src/mnemo_syscall.c) and the replay
 * library, which gives a native run of a test the same. */
#ifndef MNEMO_MODEL_H
#define MNEMO_MODEL_H

/* The time every clock reads, and none moves: runs are deterministic
 * (2024-01-01 UTC; testgen::posix::MODEL_TIME on the Rust side). */
#define MNEMO_TIME 1704067200L

#endif
