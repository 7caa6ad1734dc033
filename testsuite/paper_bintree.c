/* A BinTree container (the papers' shared subject) driven by a symbolic
 * sequence: insert three keys, remove one, then look one up; every node is
 * heap-allocated and freed at the end.
 * Counted by enumerating all 3^4 key/removed choices: one path per
 * comparison sequence.
 * expect-completed: 65
 * expect-tests: 65
 */
#include <stdlib.h>
#include <klee/klee.h>

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
  } else if (key > t->key) {
    t->right = remove_key(t->right, key);
  } else {
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
  return t;
}

static int contains(const struct node *t, int key) {
  while (t != NULL) {
    if (key == t->key)
      return 1;
    t = key < t->key ? t->left : t->right;
  }
  return 0;
}

static void destroy(struct node *t) {
  if (t == NULL)
    return;
  destroy(t->left);
  destroy(t->right);
  free(t);
}

int main(void) {
  struct node *t = NULL;
  for (int i = 0; i < 3; i++)
    t = insert(t, klee_range(0, 3, "key"));
  t = remove_key(t, klee_range(0, 3, "removed"));
  int found = contains(t, 1);
  destroy(t);
  return found;
}
