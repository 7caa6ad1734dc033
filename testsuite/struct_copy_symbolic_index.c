/* Struct assignment with a symbolic index, which clang -O0 compiles to
 * llvm.memcpy: from table[i] (a symbolic source) and into out[i] (a
 * symbolic destination). Each pointer reaches one object, so neither copy
 * forks (a symbolic pointer forks once per object it may reach); the bytes
 * are read and written at the symbolic offset, so every i is kept.
 * i is 0..3. `it.key == 2` forks: i == 1 returns 7 (1 completed). For
 * i in {0, 2, 3}, out[2].val is 30 exactly when i == 2: the assert forks,
 * failing for i == 2 (1 error) and passing for i in {0, 3} (1 completed;
 * what it returns depends on i, without a branch).
 * expect-completed: 2
 * expect-error: assert 31 1
 * expect-tests: 3
 */
#include <assert.h>
#include <klee/klee.h>

struct item {
  int key;
  int val;
  char name[8];
};
struct item table[4] = {{1, 10, "one"}, {2, 20, "two"}, {3, 30, "three"}, {4, 40, "four"}};
struct item out[4];

int main(void) {
  int i = klee_range(0, 4, "i");
  struct item it = table[i];
  if (it.key == 2)
    return 7;
  out[i] = it;
  assert(out[2].val != 30);
  return out[3].name[0];
}
