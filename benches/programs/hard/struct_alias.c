/* Memory at a symbolic index: an array of 20 two-int structs of
 * nondeterministic values, one element written at a symbolic index and read
 * back through an alias, then a loop bounded by the value read. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

struct pair {
  int x;
  int y;
};

int main(void) {
  struct pair arr[20];
  for (int k = 0; k < 20; k++) {
    arr[k].x = __VERIFIER_nondet_int();
    arr[k].y = __VERIFIER_nondet_int();
  }
  int i = __VERIFIER_nondet_int();
  if (i < 0 || i >= 20)
    return 0;
  struct pair *p = &arr[i];
  arr[i].y = __VERIFIER_nondet_int();
  int n = p->x;
  if (n > 12)
    n = 12;
  int s = 0;
  for (int j = 0; j < n; j++)
    s += arr[i].y;
  if (s == 66 && n == 11)
    reach_error();
  return 0;
}
