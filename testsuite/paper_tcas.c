/* A TCAS-like altitude-separation advisory (after the Siemens tcas program):
 * symbolic sensor readings from small ranges, a symbolic index into the
 * threshold table (always in bounds), and the upward/downward RA logic.
 * Counted by enumerating all input combinations; most end UNRESOLVED at the
 * first test.
 * expect-completed: 14
 * expect-tests: 14
 */
#include <klee/klee.h>

enum { UNRESOLVED, UPWARD_RA, DOWNWARD_RA };
enum { OLEV = 600, MAXALTDIFF = 600, MINSEP = 300, NOZCROSS = 100 };

static const int positive_ra_alt_thresh[4] = {400, 500, 640, 740};

struct sensors {
  int cur_vertical_sep;
  int high_confidence;
  int own_tracked_alt;
  int other_tracked_alt;
  int alt_layer_value;
  int up_separation;
  int down_separation;
  int climb_inhibit;
};

static int alim(const struct sensors *s) {
  return positive_ra_alt_thresh[s->alt_layer_value];
}

static int own_below_threat(const struct sensors *s) {
  return s->own_tracked_alt < s->other_tracked_alt;
}

static int own_above_threat(const struct sensors *s) {
  return s->other_tracked_alt < s->own_tracked_alt;
}

static int inhibit_biased_climb(const struct sensors *s) {
  if (s->climb_inhibit)
    return s->up_separation + NOZCROSS;
  return s->up_separation;
}

static int non_crossing_biased_climb(const struct sensors *s) {
  if (inhibit_biased_climb(s) > s->down_separation)
    return !own_below_threat(s) || s->down_separation < alim(s);
  if (!own_above_threat(s))
    return 0;
  return s->cur_vertical_sep >= MINSEP && s->up_separation >= alim(s);
}

static int non_crossing_biased_descend(const struct sensors *s) {
  if (inhibit_biased_climb(s) > s->down_separation) {
    if (!own_below_threat(s))
      return 0;
    return s->cur_vertical_sep >= MINSEP && s->down_separation >= alim(s);
  }
  return !own_above_threat(s) || s->up_separation >= alim(s);
}

int alt_sep_test(const struct sensors *s) {
  if (!s->high_confidence || s->cur_vertical_sep <= MAXALTDIFF / 2)
    return UNRESOLVED;
  int up = non_crossing_biased_climb(s) && own_below_threat(s);
  int down = non_crossing_biased_descend(s) && own_above_threat(s);
  if (up && down)
    return UNRESOLVED;
  if (up)
    return UPWARD_RA;
  if (down)
    return DOWNWARD_RA;
  return UNRESOLVED;
}

int main(void) {
  struct sensors s;
  s.cur_vertical_sep = klee_range(0, 3, "vsep") * 300;
  s.high_confidence = klee_range(0, 2, "conf");
  s.own_tracked_alt = klee_range(0, 3, "own_alt") * 1000;
  s.other_tracked_alt = klee_range(0, 3, "other_alt") * 1000;
  s.alt_layer_value = klee_range(0, 4, "layer");
  s.up_separation = klee_range(0, 4, "up_sep") * 250;
  s.down_separation = klee_range(0, 4, "down_sep") * 250;
  s.climb_inhibit = klee_range(0, 2, "inhibit");
  return alt_sep_test(&s);
}
