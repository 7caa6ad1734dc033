/* What the engine's model of the machine answers, shared by the C
 * library's system calls (musl/src/mnemo_syscall.c) and the replay
 * library, which gives a native run of a test the same. */
#ifndef MNEMO_MODEL_H
#define MNEMO_MODEL_H

#include <string.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

/* The time every clock reads, and none moves: runs are deterministic
 * (2024-01-01 UTC; testgen::posix::MODEL_TIME on the Rust side). */
#define MNEMO_TIME 1704067200L

/* The process's id (its main thread's too) and its parent's, which
 * getpid and getppid give (exec::threads::MAIN_THREAD and PARENT_PROCESS
 * on the Rust side). Not init's 1: a program may name init, natively
 * always there, and may not signal it. */
#define MNEMO_PID 1000
#define MNEMO_PARENT_PID 999

/* Descriptors 0 to MNEMO_FDS - 1, getrlimit's RLIMIT_NOFILE: a replay
 * holds the program to as many (testgen::native::MODEL_DESCRIPTORS on the
 * Rust side), so that one that keeps opening files runs out of them where
 * the engine's did. */
#define MNEMO_FDS 64

/* The inode numbers of the model's files, on device 0 but for /dev/null:
 * its fixed tree (musl/src/mnemo_names.c), the symbolic files A, B, ...
 * from MNEMO_INO_SYM_FILES on, and what the model makes (the directories
 * of the host files first, then what the program makes) from
 * MNEMO_INO_MADE on, in the order it makes them, but pipes. The replay
 * library gives a native run's files the same (replay/status.c). */
#define MNEMO_INO_WORK 1   /* the working directory, /tmp/mnemo-replay/cwd */
#define MNEMO_INO_ROOT 2   /* / */
#define MNEMO_INO_PARENT 3 /* /tmp/mnemo-replay */
#define MNEMO_INO_TMP 4    /* /tmp */
#define MNEMO_INO_NULL 5   /* /dev/null, on device MNEMO_DEV_NULL */
#define MNEMO_DEV_NULL 6
#define MNEMO_INO_DEV 7    /* /dev */
#define MNEMO_INO_PROC 8   /* /proc */
#define MNEMO_INO_UPTIME 9 /* /proc/uptime */
#define MNEMO_INO_SYM_FILES 100
#define MNEMO_INO_MADE 200
/* A pipe's, apart: a native run's pipe has the kernel's number. */
#define MNEMO_INO_PIPES 100000

/* The seconds since boot every run has had: sysinfo's uptime, and
 * /proc/uptime's text (the replay's root has the same). */
#define MNEMO_UPTIME 3600
#define MNEMO_PROC_UPTIME "3600.00 3600.00\n"

/* The machine uname names (`domainname` needs _GNU_SOURCE). */
static inline void mnemo_uname(struct utsname *u) {
  memset(u, 0, sizeof *u);
  strcpy(u->sysname, "Linux");
  strcpy(u->nodename, "mnemo");
  strcpy(u->release, "6.1.0");
  strcpy(u->version, "#1 SMP");
  strcpy(u->machine, "x86_64");
  strcpy(u->domainname, "(none)");
}

/* What sysinfo answers: no load, 4 GiB of memory all free, one process. */
static inline void mnemo_sysinfo(struct sysinfo *s) {
  memset(s, 0, sizeof *s);
  s->uptime = MNEMO_UPTIME;
  s->totalram = s->freeram = 1L << 32;
  s->procs = 1;
  s->mem_unit = 1;
}

/* What statfs answers of every file system: an empty tmpfs. */
static inline void mnemo_statfs(struct statfs *st) {
  memset(st, 0, sizeof *st);
  st->f_type = 0x01021994; /* tmpfs */
  st->f_bsize = st->f_frsize = 4096;
  st->f_namelen = 255;
}

/* The bytes getrandom gives: fixed, the same for every call, so runs are
 * deterministic. */
static inline void mnemo_random(unsigned char *buf, unsigned long len) {
  for (unsigned long i = 0; i < len; i++)
    buf[i] = (unsigned char)(i * 131 + 7);
}

#endif
