/* Memoise Fig. 10: BankAccount (opening balance 6) driven by a symbolic
 * sequence of six deposit/withdraw calls with symbolic amounts in {1, 2};
 * a sixth successful withdrawal hits the assert on withdrawals >= 5.
 * Counted by enumerating all 4^6 op/amount sequences: one path per distinct
 * outcome sequence.
 * expect-completed: 92
 * expect-error: assert 32 1
 * expect-tests: 93
 */
#include <assert.h>
#include <stdio.h>
#include <klee/klee.h>

struct account {
  int balance;
  int withdrawals;
};

static void print_error(void) { printf("error\n"); }

void deposit(struct account *a, int amount) {
  if (amount > 0)
    a->balance = a->balance + amount;
}

void withdraw(struct account *a, int amount) {
  if (amount > a->balance) {
    print_error();
    return;
  }
  if (a->withdrawals >= 5) {
    assert(0 && "too many withdrawals");
    print_error();
    return;
  }
  a->balance = a->balance - amount;
  a->withdrawals++;
}

int main(void) {
  struct account acc = {6, 0};
  for (int i = 0; i < 6; i++) {
    int op = klee_range(0, 2, "op");
    int amount = klee_range(1, 3, "amount");
    if (op == 0)
      deposit(&acc, amount);
    else
      withdraw(&acc, amount);
  }
  return acc.balance;
}
