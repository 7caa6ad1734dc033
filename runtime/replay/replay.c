/*
 * libmnemo-replay: klee.h's functions and SV-COMP's input functions for a
 * natively compiled program, taking each input from the next object of the
 * .ktest file named by $KTEST_FILE (or open on descriptor $MNEMO_KTEST_FD:
 * a replay chrooted into the model's file system keeps the test outside
 * it, where a listing of / cannot see it). A problem with the test itself
 * (missing file, wrong object size, failed assumption) exits with status 77
 * after a "MNEMO-REPLAY:" line on stderr, so it cannot be mistaken for a
 * behaviour of the program; errors the program reports through klee.h print
 * a marker line that mnemo's replay classifier recognizes.
 *
 * A test of a program run in a POSIX environment (--sym-arg, --sym-files,
 * --sym-stdin, ...) starts with the objects that describe that environment;
 * mnemo's replay recreates it outside the program and tells this library
 * how many such objects to pass over with $MNEMO_POSIX_OBJECTS.
 */
/* The model's answers (mnemo/model.h) name utsname's domainname, glibc's
 * under _GNU_SOURCE. */
#define _GNU_SOURCE
#include "klee/klee.h"
#include "ktest_reader.h"
#include "mnemo/model.h"
#include "mnemo/verifier.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <grp.h>
#include <sys/syscall.h>
#include <unistd.h>

#define REPLAY_FAILED 77

/* clone3's number, which older headers lack. */
#ifdef SYS_clone3
#define SYS_CLONE3 SYS_clone3
#else
#define SYS_CLONE3 435
#endif

static struct ktest test;
static int test_loaded;
static uint32_t next_object;

/* This library's own variables, taken out of the program's environment
 * before main: the engine's program sees only what the test's `--env`
 * options give, and so must the native one (`env` prints its whole
 * environment). ASan has read its options by now. */
static const char *ktest_file, *ktest_fd, *posix_objects;

static void load_test(void);
static void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

static const char *take_variable(const char *name) {
  const char *value = getenv(name);
  char *copy = value ? strdup(value) : NULL;
  unsetenv(name);
  return copy;
}

/* A seccomp filter's first instructions: a call of an architecture other
 * than 64-bit x86 skips `to_allow` instructions (to one that allows it),
 * and the call's number is loaded. */
#define X86_64_CALL(to_allow)                                                                      \
  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),                         \
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, to_allow),                         \
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))

/* Installs `filter` on this process and the programs it runs (filters
 * stack: a call any of them refuses is refused); whether it could. */
static int install_filter(struct sock_filter *filter, unsigned short len) {
  struct sock_fprog program = {len, filter};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

/* Makes nanosleep and clock_nanosleep return 0 at once, as the model's
 * do (its clock does not move): a seccomp filter answers them without
 * making them. Where the machine allows no filter, sleeps take their time.
 * mnemo's replay installs the same filter itself in a program built
 * without this library. */
static void sleeps_take_no_time(void) {
  struct sock_filter filter[] = {
      X86_64_CALL(3),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_nanosleep, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_nanosleep, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      /* An errno of 0: the call returns 0. */
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO),
  };
  install_filter(filter, sizeof filter / sizeof filter[0]);
}

/* Holds the program to itself, as the engine's is: a fork, vfork or
 * clone of a process fails with EAGAIN, while a thread (CLONE_THREAD) is
 * made; clone3, whose flags the filter cannot read, fails with ENOSYS, on
 * which the C library makes the same call with clone. And it signals no
 * other process: in the model it is its user's only one, so kill(-1)
 * reaches no one and returns 0 (natively, as root, it would reach every
 * process of the machine), and init and the parent may not be signalled.
 * Nor does it reach another machine: the model has no network, and its
 * socket() fails with EAFNOSUPPORT whatever the family (a name lookup
 * then ends at once, where natively it would ask the machine's resolver).
 * A seccomp filter does it, for root too; where the machine allows none,
 * a user other than root is held to one process of its own
 * (RLIMIT_NPROC), which refuses its threads too, and sockets are made.
 * mnemo's replay does the same itself in a program built without this
 * library. */
static void no_other_process(void) {
  struct sock_filter filter[] = {
      X86_64_CALL(13),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 16, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fork, 11, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_vfork, 10, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_CLONE3, 10, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_kill, 3, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 6),
      /* The flags' low word. */
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 4, 5),
      /* kill: the pid, an int, in the low word. */
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)-1, 6, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 4, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)getppid(), 3, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAGAIN),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      /* An errno of 0: the call returns 0. */
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAFNOSUPPORT),
  };
  if (!install_filter(filter, sizeof filter / sizeof filter[0]) && getuid() != 0) {
    /* The hard limit leaves room for one thread more, which a build's
     * own instrumentation may raise its soft limit to start. */
    struct rlimit one = {1, 2};
    setrlimit(RLIMIT_NPROC, &one);
  }
}

/* Becomes the user mnemo's replay names, "UID:GID" (the model's,
 * nobody), with no supplementary groups. Started as root, the program
 * changes user itself, once it has read its test (which may lie where
 * that user has no way): the replay then spawns it without first copying
 * its own address space. */
static void become(const char *user) {
  char *end;
  unsigned long uid = strtoul(user, &end, 10), gid = 0;
  int ok = end != user && *end == ':';
  if (ok) {
    const char *at = end + 1;
    gid = strtoul(at, &end, 10);
    ok = end != at && *end == '\0' && uid <= 0xffffffffUL && gid <= 0xffffffffUL;
  }
  if (!ok)
    fail("MNEMO_REPLAY_USER=%s is not UID:GID", user);
  if (setgroups(0, NULL) != 0 || setgid((gid_t)gid) != 0 || setuid((uid_t)uid) != 0)
    fail("cannot become user %s: %s", user, strerror(errno));
  /* The change leaves the process undumpable, its /proc/self files
   * root's: as an exec by that user would, it may read them again
   * (AddressSanitizer's report reads its maps, `ls /proc/self/fd`). */
  prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

/* Before the program's own constructors, which may sleep or fork too. */
__attribute__((constructor(101))) static void take_own_variables(void) {
  const char *no_sleep = take_variable("MNEMO_REPLAY_NO_SLEEP");
  const char *one_process = take_variable("MNEMO_REPLAY_ONE_PROCESS");
  const char *early_test = take_variable("MNEMO_REPLAY_EARLY_TEST");
  const char *user = take_variable("MNEMO_REPLAY_USER");
  ktest_file = take_variable("KTEST_FILE");
  ktest_fd = take_variable("MNEMO_KTEST_FD");
  posix_objects = take_variable("MNEMO_POSIX_OBJECTS");
  unsetenv("ASAN_OPTIONS");
  /* The engine starts the program with SIGPIPE ignored: a write to a
   * pipe with no reader (stdout, once the replay has read as much as the
   * engine lets a path write) fails with EPIPE there, and so it must
   * here. */
  signal(SIGPIPE, SIG_IGN);
  /* A replay that fails system calls (`--max-fail`) counts the program's
   * reads and closes from main on, as the engine's model does, and the
   * model reads no test: it is read now. So is a test given as a
   * descriptor, which is closed before main, as the engine's program has
   * no such descriptor open, and one the program reads before it changes
   * user, where there is one (a program with no inputs of its own runs
   * without). */
  if (early_test != NULL || ktest_fd != NULL ||
      (user != NULL && ktest_file != NULL && access(ktest_file, F_OK) == 0))
    load_test();
  /* Before the parent-death signal below, which a change of user forgets. */
  if (user != NULL)
    become(user);
  /* What mnemo's replay asks of the program, done here rather than
   * between its fork and the exec: with nothing to do there, the replay
   * spawns the program without copying its own address space, a quarter
   * of a replay's time. */
  if (no_sleep != NULL)
    sleeps_take_no_time();
  if (one_process != NULL) {
    no_other_process();
    /* As many descriptors as the model has. */
    struct rlimit descriptors = {MNEMO_FDS, MNEMO_FDS};
    setrlimit(RLIMIT_NOFILE, &descriptors);
    /* In a group of its own, the program is out of reach of the
     * terminal's ^C that ends the replay: it ends with the replay. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
  }
}

static void fail(const char *fmt, ...) {
  va_list ap;
  fflush(stdout);
  fputs("MNEMO-REPLAY: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(REPLAY_FAILED);
}

static void skip_environment_objects(const char *path) {
  const char *text = posix_objects;
  char *end;
  unsigned long n;
  if (text == NULL || *text == '\0')
    return;
  n = strtoul(text, &end, 10);
  if (*end != '\0' || n > test.num_objects)
    fail("MNEMO_POSIX_OBJECTS=%s, but %s has %u object(s)", text, path,
         test.num_objects);
  next_object = (uint32_t)n;
}

/* The test's file, from the descriptor mnemo's replay gave or by name;
 * `path` is what messages call it. */
static FILE *open_test(const char **path) {
  static char fd_name[48];
  FILE *f;
  if (ktest_fd != NULL) {
    char *end;
    long fd = strtol(ktest_fd, &end, 10);
    snprintf(fd_name, sizeof fd_name, "the test on descriptor %s", ktest_fd);
    *path = fd_name;
    if (*ktest_fd == '\0' || *end != '\0' || fd < 3 || fd > 65535)
      fail("MNEMO_KTEST_FD=%s is not a descriptor past stderr", ktest_fd);
    f = fdopen((int)fd, "rb");
  } else {
    *path = ktest_file;
    if (ktest_file == NULL || *ktest_file == '\0')
      fail("KTEST_FILE is not set; it must name the .ktest file to replay");
    f = fopen(ktest_file, "rb");
  }
  if (f == NULL)
    fail("cannot open %s", *path);
  return f;
}

static void load_test(void) {
  const char *path;
  FILE *f = open_test(&path);
  unsigned char *data = NULL;
  size_t size = 0, cap = 0;
  char err[160];

  for (;;) {
    size_t n;
    if (size == cap) {
      unsigned char *grown;
      cap = cap == 0 ? 4096 : cap * 2;
      grown = realloc(data, cap);
      if (grown == NULL)
        fail("out of memory reading %s", path);
      data = grown;
    }
    n = fread(data + size, 1, cap - size, f);
    size += n;
    if (n == 0)
      break;
  }
  if (ferror(f))
    fail("cannot read %s", path);
  fclose(f);
  if (ktest_parse(data, size, &test, err, sizeof err) != 0)
    fail("%s: %s", path, err);
  skip_environment_objects(path);
  test_loaded = 1;
}

/* The next object, which must have exactly `size` bytes. */
static const struct ktest_object *take_object(size_t size, const char *what) {
  const struct ktest_object *o;
  if (!test_loaded)
    load_test();
  if (next_object >= test.num_objects)
    fail("%s asks for input %u but the test has only %u object(s)", what,
         next_object + 1, test.num_objects);
  o = &test.objects[next_object];
  if (o->size != size)
    fail("%s asks for %zu bytes but object %u ('%.*s') has %u", what, size,
         next_object, (int)o->name_len, o->name, o->size);
  next_object++;
  return o;
}

void klee_make_symbolic(void *addr, size_t nbytes, const char *name) {
  char what[128];
  snprintf(what, sizeof what, "klee_make_symbolic(\"%s\")",
           name != NULL ? name : "");
  memcpy(addr, take_object(nbytes, what)->bytes, nbytes);
}

int klee_int(const char *name) {
  int v;
  klee_make_symbolic(&v, sizeof v, name);
  return v;
}

int klee_range(int begin, int end, const char *name) {
  int v;
  if (begin >= end)
    klee_report_error(__FILE__, __LINE__, "invalid range", "user");
  klee_make_symbolic(&v, sizeof v, name);
  if (v < begin || v >= end)
    fail("klee_range(%d, %d, \"%s\") got %d from the test", begin, end,
         name != NULL ? name : "", v);
  return v;
}

uintptr_t klee_choose(uintptr_t n) {
  uintptr_t x;
  klee_make_symbolic(&x, sizeof x, "klee_choose");
  if (x >= n)
    fail("klee_choose(%ju) got %ju from the test", (uintmax_t)n,
         (uintmax_t)x);
  return x;
}

int klee_get_errno(void) { return errno; }

void klee_mark_global(void *object) { (void)object; }

void klee_set_forking(unsigned enable) { (void)enable; }

/* The fixed objects defined so far: an overlap is refused as the engine
 * refuses it, and their pages are mapped already. */
#define MAX_FIXED 64
static struct {
  uintptr_t lo, hi;
} fixed[MAX_FIXED];
static int nfixed;

static int fixed_overlap(uintptr_t lo, uintptr_t hi) {
  for (int i = 0; i < nfixed; i++)
    if (lo < fixed[i].hi && fixed[i].lo < hi)
      return 1;
  return 0;
}

void klee_define_fixed_object(void *addr, size_t nbytes) {
  uintptr_t lo = (uintptr_t)addr, hi = lo + (nbytes > 0 ? nbytes : 1);
  if (hi < lo)
    klee_report_error(__FILE__, __LINE__,
                      "klee_define_fixed_object: wraps around", "user");
  if (lo < 4096)
    klee_report_error(__FILE__, __LINE__,
                      "klee_define_fixed_object: the null page", "user");
  /* Where the engine keeps its own: its functions' addresses, and the
   * heap and above. */
  if ((lo < 0x10000000u && hi > 0x8000000u) || hi > 0x500000000000u)
    klee_report_error(__FILE__, __LINE__,
                      "klee_define_fixed_object: the engine's addresses",
                      "user");
  if (fixed_overlap(lo, hi))
    klee_report_error(__FILE__, __LINE__,
                      "klee_define_fixed_object: overlaps a fixed object",
                      "user");
  if (nfixed == MAX_FIXED)
    fail("more than %d fixed objects", MAX_FIXED);
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  for (uintptr_t p = lo & ~(page - 1); p < hi; p += page) {
    if (fixed_overlap(p, p + page))
      continue;
    void *m = mmap((void *)p, page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (m != (void *)p)
      fail("klee_define_fixed_object(%p, %zu): %#jx is not free natively",
           addr, nbytes, (uintmax_t)p);
  }
  fixed[nfixed].lo = lo;
  fixed[nfixed++].hi = hi;
}

/* The engine ends a path whose klee_assume it cannot meet as a user error
 * (unless told --silent-klee-assume, when no test reaches one). */
void klee_assume(uintptr_t condition) {
  if (!condition) {
    fflush(stdout);
    fputs("MNEMO-REPLAY: error user: invalid klee_assume call (provably false)\n",
          stderr);
    exit(1);
  }
}

void __VERIFIER_assume(int cond) {
  if (!cond)
    fail("assumption failed");
}

void klee_report_error(const char *file, int line, const char *message,
                       const char *suffix) {
  (void)file;
  (void)line;
  (void)suffix;
  fflush(stdout);
  fprintf(stderr, "MNEMO-REPLAY: error user: %s\n",
          message != NULL ? message : "");
  exit(1);
}

void klee_silent_exit(int status) { exit(status); }

void klee_warning(const char *message) {
  fprintf(stderr, "MNEMO-REPLAY: warning: %s\n",
          message != NULL ? message : "");
}

unsigned klee_is_symbolic(uintptr_t n) {
  (void)n;
  return 0;
}

void klee_warning_once(const char *message) {
  /* A list of the messages printed: a harness warns about few things. */
  static struct warned {
    struct warned *next;
    char text[];
  } *warned;
  const char *m = message != NULL ? message : "";
  struct warned *w;
  for (w = warned; w != NULL; w = w->next)
    if (strcmp(w->text, m) == 0)
      return;
  w = malloc(sizeof *w + strlen(m) + 1);
  if (w != NULL) {
    strcpy(w->text, m);
    w->next = warned;
    warned = w;
  }
  klee_warning(m);
}

void klee_abort(void) { abort(); }

/* The engine fixed the path to the value it returned, and the test's
 * inputs give that value here. */
int32_t klee_get_value_i32(int32_t value) { return value; }
int64_t klee_get_value_i64(int64_t value) { return value; }
long klee_get_valuel(long value) { return value; }
long long klee_get_valuell(long long value) { return value; }
float klee_get_valuef(float value) { return value; }
double klee_get_valued(double value) { return value; }

/* The engine made the test's inputs meet the preferences already. */
void klee_prefer_cex(void *object, uintptr_t condition) {
  (void)object;
  (void)condition;
}

void klee_posix_prefer_cex(void *object, uintptr_t condition) {
  (void)object;
  (void)condition;
}

/* The value after the message has a type only the caller knows: reading it
 * as any one type would be undefined for the others. The lines carry no
 * replay marker: the program's text must never read as a report. */
void klee_print_expr(const char *message, ...) {
  fprintf(stderr, "klee_print_expr: %s\n", message != NULL ? message : "");
}

void klee_print_range(const char *name, int value) {
  fprintf(stderr, "klee_print_range: %s: %d\n", name != NULL ? name : "",
          value);
}

/* A native pointer carries no object size: ASan knows some objects' sizes
 * but not all (argv, the C library's), and a size that is right only
 * sometimes would make a replay disagree with the engine unnoticed. */
size_t klee_get_obj_size(void *ptr) {
  fail("klee_get_obj_size(%p) has no native answer; call it only where "
       "klee_is_replay() is 0",
       ptr);
}

/* AddressSanitizer's own interface, weak so that the library also links
 * into a build without it (where the check does nothing). */
extern void *__asan_region_is_poisoned(void *beg, size_t size)
    __attribute__((weak));
extern void __asan_report_error(void *pc, void *bp, void *sp, void *addr,
                                int is_write, size_t size)
    __attribute__((weak));

/* What the engine checks against its objects, checked against ASan's:
 * bytes it poisons (past an object, freed) are reported as an access to
 * them would be, and a null pointer faults as an access would. Other wild
 * addresses ASan does not know of pass. */
void klee_check_memory_access(const void *address, size_t size) {
  char *bad;
  if (size == 0)
    return;
  if ((uintptr_t)address < 4096) {
    fflush(stdout);
    (void)*(const volatile char *)address;
  }
  if (__asan_region_is_poisoned == NULL || __asan_report_error == NULL)
    return;
  bad = __asan_region_is_poisoned((void *)address, size);
  if (bad != NULL) {
    fflush(stdout);
    __asan_report_error(__builtin_return_address(0),
                        __builtin_frame_address(0), &bad, bad, 0, 1);
  }
}

unsigned klee_is_replay(void) { return 1; }

extern void __sanitizer_print_stack_trace(void) __attribute__((weak));

void klee_stack_trace(void) {
  if (__sanitizer_print_stack_trace != NULL)
    __sanitizer_print_stack_trace();
}

void klee_open_merge(void) {}
void klee_close_merge(void) {}

static void report_reach(void) __attribute__((noreturn));

static void report_reach(void) {
  fflush(stdout);
  fputs("MNEMO-REPLAY: error reach\n", stderr);
  exit(1);
}

/* Weak: an SV-COMP program usually defines reach_error itself, and then its
 * definition (typically an assert) is what runs, in the engine too. */
__attribute__((weak)) void reach_error(void) { report_reach(); }
__attribute__((weak)) void __VERIFIER_error(void) { report_reach(); }

#define NONDET(suffix, type)                                                 \
  type __VERIFIER_nondet_##suffix(void) {                                    \
    type v;                                                                  \
    memcpy(&v,                                                               \
           take_object(sizeof v, "__VERIFIER_nondet_" #suffix)->bytes,       \
           sizeof v);                                                        \
    return v;                                                                \
  }

NONDET(int, int)
NONDET(uint, unsigned int)
NONDET(unsigned, unsigned int)
NONDET(long, long)
NONDET(ulong, unsigned long)
NONDET(longlong, long long)
NONDET(ulonglong, unsigned long long)
NONDET(char, char)
NONDET(uchar, unsigned char)
NONDET(short, short)
NONDET(ushort, unsigned short)
NONDET(bool, _Bool)
NONDET(_Bool, _Bool)
NONDET(size_t, size_t)
NONDET(u32, unsigned int)
NONDET(u16, unsigned short)
NONDET(u8, unsigned char)
NONDET(pointer, void *)
NONDET(float, float)
NONDET(double, double)
