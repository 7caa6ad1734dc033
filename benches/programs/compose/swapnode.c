/* SwapNode (after the subject of Qiu et al., ICSE 2015): swap_node swaps
 * a node with its successor when they are out of order. The drivers build
 * a three-node list with symbolic elements and call it twice and three
 * times. */
#include <klee/klee.h>
#include <stddef.h>

struct node {
  int elem;
  struct node *next;
};

struct node *swap_node(struct node *n) {
  if (n == NULL)
    return NULL;
  if (n->next != NULL) {
    if (n->elem > n->next->elem) {
      struct node *t = n->next;
      n->next = t->next;
      t->next = n;
      return t;
    }
  }
  return n;
}

static struct node *list3(struct node *nodes) {
  for (int i = 0; i < 3; i++) {
    nodes[i].elem = klee_range(0, 8, "elem");
    nodes[i].next = i < 2 ? &nodes[i + 1] : NULL;
  }
  return &nodes[0];
}

int call_twice(void) {
  struct node nodes[3];
  struct node *h = list3(nodes);
  h = swap_node(h);
  h->next = swap_node(h->next);
  return h->elem;
}

int call3_times(void) {
  struct node nodes[3];
  struct node *h = list3(nodes);
  h = swap_node(h);
  h->next = swap_node(h->next);
  h = swap_node(h);
  return h->elem;
}

int main(void) { return call3_times(); }
