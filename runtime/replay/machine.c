/*
 * The model's machine in a native run: uname names the machine the engine
 * models, getrandom gives its fixed bytes, sysinfo and getloadavg its
 * uptime, memory and load, and statfs and statvfs its file systems (an
 * empty tmpfs), so that a test of a program that prints any of them
 * (`uname -a`, a name `mktemp` makes, `shuf`'s order, `uptime`'s load,
 * `df`'s columns, `stat -f`) prints what the engine predicted. Defined in
 * the program, these take the place of the C library's functions for the
 * program's own calls.
 */
#define _GNU_SOURCE
#include <sys/random.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mnemo/model.h"

int uname(struct utsname *u) {
  mnemo_uname(u);
  return 0;
}

ssize_t getrandom(void *buf, size_t len, unsigned flags) {
  (void)flags;
  mnemo_random(buf, len);
  return (ssize_t)len;
}

int sysinfo(struct sysinfo *s) {
  mnemo_sysinfo(s);
  return 0;
}

/* From sysinfo's loads, as musl's getloadavg (which the engine runs)
 * computes them; glibc's would read the machine's /proc/loadavg. */
int getloadavg(double *loads, int n) {
  struct sysinfo s;
  mnemo_sysinfo(&s);
  if (n < 0)
    return -1;
  if (n > 3)
    n = 3;
  for (int i = 0; i < n; i++)
    loads[i] = s.loads[i] / 65536.0;
  return n;
}

/* The file system's answer decides only whether the call fails (no such
 * file, a bad descriptor), as the model checks the path or descriptor
 * before it answers. */
int statfs(const char *path, struct statfs *st) {
  if (syscall(SYS_statfs, path, st) != 0)
    return -1;
  mnemo_statfs(st);
  return 0;
}

int fstatfs(int fd, struct statfs *st) {
  if (syscall(SYS_fstatfs, fd, st) != 0)
    return -1;
  mnemo_statfs(st);
  return 0;
}

/* statvfs from statfs, field by field, as musl's does. */
static void from_statfs(struct statvfs *out, const struct statfs *in) {
  memset(out, 0, sizeof *out);
  out->f_bsize = in->f_bsize;
  out->f_frsize = in->f_frsize ? in->f_frsize : in->f_bsize;
  out->f_blocks = in->f_blocks;
  out->f_bfree = in->f_bfree;
  out->f_bavail = in->f_bavail;
  out->f_files = in->f_files;
  out->f_ffree = in->f_ffree;
  out->f_favail = in->f_ffree;
  out->f_fsid = (unsigned)in->f_fsid.__val[0];
  out->f_flag = in->f_flags;
  out->f_namemax = in->f_namelen;
}

int statvfs(const char *restrict path, struct statvfs *restrict out) {
  struct statfs st;
  if (statfs(path, &st) != 0)
    return -1;
  from_statfs(out, &st);
  return 0;
}

int fstatvfs(int fd, struct statvfs *out) {
  struct statfs st;
  if (fstatfs(fd, &st) != 0)
    return -1;
  from_statfs(out, &st);
  return 0;
}

/* glibc's names for them where files are 64-bit (one layout on x86-64). */
int statfs64(const char *path, struct statfs64 *st) {
  return statfs(path, (struct statfs *)st);
}

int fstatfs64(int fd, struct statfs64 *st) { return fstatfs(fd, (struct statfs *)st); }

int statvfs64(const char *restrict path, struct statvfs64 *restrict out) {
  return statvfs(path, (struct statvfs *)out);
}

int fstatvfs64(int fd, struct statvfs64 *out) { return fstatvfs(fd, (struct statvfs *)out); }
