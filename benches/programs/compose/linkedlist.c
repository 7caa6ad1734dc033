/* A sorted linked list (after the LinkedList subject of Qiu et al., ICSE
 * 2015): add inserts in order, rep_ok checks the list is sorted and its
 * size right. The drivers add three and five symbolic elements, checking
 * the list after each. */
#include <klee/klee.h>
#include <stdlib.h>
void reach_error(void);

struct node {
  int value;
  struct node *next;
};

struct list {
  struct node *head;
  int size;
};

void add(struct list *l, int v) {
  struct node *n = malloc(sizeof *n);
  n->value = v;
  if (l->head == NULL || v <= l->head->value) {
    n->next = l->head;
    l->head = n;
  } else {
    struct node *p = l->head;
    while (p->next != NULL && p->next->value < v)
      p = p->next;
    n->next = p->next;
    p->next = n;
  }
  l->size = l->size + 1;
}

int rep_ok(struct list *l) {
  int count = 0;
  for (struct node *p = l->head; p != NULL; p = p->next) {
    count++;
    if (p->next != NULL && p->value > p->next->value)
      return 0;
  }
  return count == l->size;
}

static int adds(int n) {
  struct list l = {NULL, 0};
  for (int i = 0; i < n; i++) {
    add(&l, klee_range(0, 8, "v"));
    if (!rep_ok(&l))
      reach_error();
  }
  return l.size;
}

int call3_times(void) { return adds(3); }
int call5_times(void) { return adds(5); }
int main(void) { return call5_times(); }
