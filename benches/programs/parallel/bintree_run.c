/* The binary search tree of testsuite/paper_bintree.c filled with as many
 * symbolic keys as the input gives, then one key removed and the order
 * checked (a repOk walk). Only the run's depth bound ends the filling, so
 * the tree of paths grows with --max-depth (the parallel benchmark's
 * container subject). */
#include <assert.h>
#include <klee/klee.h>
#include <stdlib.h>

struct node {
  int key;
  struct node *left, *right;
};

static struct node *insert(struct node *t, int key) {
  if (t == NULL) {
    struct node *n = malloc(sizeof *n);
    n->key = key;
    n->left = n->right = NULL;
    return n;
  }
  if (key < t->key)
    t->left = insert(t->left, key);
  else if (key > t->key)
    t->right = insert(t->right, key);
  return t;
}

static struct node *remove_min(struct node *t, struct node **min) {
  if (t->left == NULL) {
    *min = t;
    return t->right;
  }
  t->left = remove_min(t->left, min);
  return t;
}

static struct node *remove_key(struct node *t, int key) {
  if (t == NULL)
    return NULL;
  if (key < t->key) {
    t->left = remove_key(t->left, key);
    return t;
  }
  if (key > t->key) {
    t->right = remove_key(t->right, key);
    return t;
  }
  struct node *rest;
  if (t->left == NULL) {
    rest = t->right;
  } else if (t->right == NULL) {
    rest = t->left;
  } else {
    struct node *min;
    struct node *right = remove_min(t->right, &min);
    min->left = t->left;
    min->right = right;
    rest = min;
  }
  free(t);
  return rest;
}

/* Whether every key of t lies strictly between lo and hi. */
static int ordered(const struct node *t, int lo, int hi) {
  if (t == NULL)
    return 1;
  if (t->key <= lo || t->key >= hi)
    return 0;
  return ordered(t->left, lo, t->key) && ordered(t->right, t->key, hi);
}

int main(void) {
  struct node *t = NULL;
  while (klee_range(0, 2, "more"))
    t = insert(t, klee_range(0, 16, "key"));
  t = remove_key(t, klee_range(0, 16, "removed"));
  assert(ordered(t, -1, 16));
  return t != NULL;
}
