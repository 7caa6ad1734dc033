/* No symbolic input: one completed path (a sieve, some string and heap
 * work), exercising the interpreter without the solver.
 * expect-completed: 1
 * expect-tests: 1
 */
#include <stdlib.h>
#include <string.h>

int main(void) {
  char sieve[100];
  memset(sieve, 1, sizeof sieve);
  int primes = 0;
  for (int i = 2; i < 100; i++) {
    if (!sieve[i])
      continue;
    primes++;
    for (int j = i * i; j < 100; j += i)
      sieve[j] = 0;
  }
  char *msg = malloc(32);
  strcpy(msg, "primes below 100: ");
  size_t len = strlen(msg);
  free(msg);
  return primes == 25 && len == 18 ? 0 : 1;
}
