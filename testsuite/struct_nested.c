/* Nested structs, an array of structs, structs passed by value and by
 * pointer and returned by value (sret and coerced returns), with branches on
 * symbolic fields that survive all the copies.
 * Counted by enumerating px, py: 5 outcomes of box 0 refined by box 1 and
 * w.p.x > 6.
 * expect-completed: 14
 * expect-tests: 14
 */
#include <klee/klee.h>

struct point {
  int x, y;
};

struct rect {
  struct point lo, hi;
  char tag;
};

struct big {
  long long a, b, c;
  struct point p;
};

static struct point make_point(int x, int y) {
  struct point p = {x, y};
  return p;
}

static struct rect grow(struct rect r, int by) {
  r.lo.x -= by;
  r.lo.y -= by;
  r.hi.x += by;
  r.hi.y += by;
  return r;
}

static struct big widen(struct big b) {
  b.c = b.a + b.b;
  b.p.x *= 2;
  return b;
}

static int contains(const struct rect *r, struct point p) {
  return r->lo.x <= p.x && p.x <= r->hi.x && r->lo.y <= p.y && p.y <= r->hi.y;
}

int main(void) {
  int px = klee_range(-5, 6, "px");
  int py = klee_range(-5, 6, "py");
  struct rect boxes[2] = {{{0, 0}, {2, 2}, 'a'}, {{-3, -3}, {-1, -1}, 'b'}};
  boxes[1] = grow(boxes[1], 1);
  struct point p = make_point(px, py);
  int hits = 0;
  for (int i = 0; i < 2; i++)
    if (contains(&boxes[i], p))
      hits += boxes[i].tag;
  struct big b = {1, 2, 0, p};
  struct big w = widen(b);
  if (w.p.x > 6)
    hits += 1000;
  return hits + (int)w.c;
}
