/* A bank account (after the BankAccount subject of Qiu et al., ICSE 2015):
 * deposit and withdraw act on the account through a pointer, as C code
 * keeps an object's fields; the driver `main` applies a sequence of five
 * symbolic operations with symbolic amounts. -DSEED=1|2|3 seeds an error
 * on withdraw's first, a middle or its last path. */
#include <klee/klee.h>
#ifndef SEED
#define SEED 0
#endif
void reach_error(void);

struct account {
  int balance;
  int withdrawals;
};

int deposit(struct account *a, int amount) {
  if (amount <= 0)
    return -1;
  a->balance = a->balance + amount;
  return 0;
}

int withdraw(struct account *a, int amount) {
  if (amount <= 0) {
    if (SEED == 1) reach_error();
    return -1;
  }
  if (amount > a->balance) {
    if (SEED == 2) reach_error();
    return -2;
  }
  a->balance = a->balance - amount;
  a->withdrawals = a->withdrawals + 1;
  if (a->withdrawals > 3 && a->balance < 2) {
    if (SEED == 3) reach_error();
    return 1;
  }
  return 0;
}

int main(void) {
  struct account acc = {4, 0};
  int refused = 0;
  for (int i = 0; i < 5; i++) {
    int op = klee_range(0, 2, "op");
    int amount = klee_range(0, 4, "amount");
    int r = op == 0 ? deposit(&acc, amount) : withdraw(&acc, amount);
    if (r < 0)
      refused++;
  }
  return refused;
}
