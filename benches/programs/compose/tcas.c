/* A small traffic-collision avoidance advisory (after the classic TCAS
 * alt_sep_test logic, written anew): every input is a parameter, so each
 * function's paths are over its arguments alone. The driver `main` asks
 * for an advisory on two successive radar frames of a symbolic
 * encounter. -DSEED=1|2|3 seeds an error on alt_sep_test's first, a
 * middle or its last path. */
#include <klee/klee.h>
#ifndef SEED
#define SEED 0
#endif
void reach_error(void);

enum { UNRESOLVED, UPWARD_RA, DOWNWARD_RA };
enum { NO_INTENT, DO_NOT_CLIMB, DO_NOT_DESCEND };

#define OLEV 600
#define MAXALTDIFF 300
#define MINSEP 300
#define NOZCROSS 100

int alim(int level) {
  switch (level) {
  case 0:
    return 400;
  case 1:
    return 500;
  case 2:
    return 640;
  default:
    return 740;
  }
}

int biased_up_sep(int climb_inhibit, int up_sep) {
  if (climb_inhibit)
    return up_sep + NOZCROSS;
  return up_sep;
}

int non_crossing_biased_climb(int level, int climb_inhibit, int up_sep,
                              int down_sep, int own_alt, int other_alt) {
  int upward_preferred = biased_up_sep(climb_inhibit, up_sep) > down_sep;
  if (upward_preferred) {
    if (own_alt < other_alt && down_sep >= alim(level))
      return 0;
    return 1;
  }
  if (own_alt > other_alt && up_sep >= alim(level))
    return 1;
  return 0;
}

int non_crossing_biased_descend(int level, int climb_inhibit, int up_sep,
                                int down_sep, int own_alt, int other_alt) {
  int upward_preferred = biased_up_sep(climb_inhibit, up_sep) > down_sep;
  if (upward_preferred) {
    if (own_alt < other_alt && down_sep >= alim(level))
      return 1;
    return 0;
  }
  if (own_alt > other_alt && up_sep >= alim(level))
    return 0;
  return 1;
}

int alt_sep_test(int high_confidence, int own_alt, int own_rate,
                 int other_alt, int level, int up_sep, int down_sep,
                 int other_rac, int climb_inhibit, int vert_sep) {
  int enabled = high_confidence && own_rate <= OLEV && vert_sep > MAXALTDIFF;
  if (!enabled) {
    if (SEED == 1) reach_error();
    return UNRESOLVED;
  }
  int need_up = 0, need_down = 0;
  if (other_rac == NO_INTENT || other_rac == DO_NOT_DESCEND)
    need_up = non_crossing_biased_climb(level, climb_inhibit, up_sep,
                                        down_sep, own_alt, other_alt) &&
              own_alt < other_alt;
  if (other_rac == NO_INTENT || other_rac == DO_NOT_CLIMB)
    need_down = non_crossing_biased_descend(level, climb_inhibit, up_sep,
                                            down_sep, own_alt, other_alt) &&
                own_alt > other_alt;
  if (need_up && need_down)
    return UNRESOLVED;
  if (need_up) {
    if (SEED == 2) reach_error();
    return UPWARD_RA;
  }
  if (need_down)
    return DOWNWARD_RA;
  if (SEED == 3) reach_error();
  return UNRESOLVED;
}

int main(void) {
  int level = klee_range(0, 4, "level");
  int climb_inhibit = klee_range(0, 2, "climb_inhibit");
  int other_alt = klee_range(0, 2000, "other_alt");
  int advisories = 0;
  for (int frame = 0; frame < 2; frame++) {
    int own_alt = klee_range(0, 2000, "own_alt");
    int rate = klee_range(0, 1000, "own_rate");
    int up_sep = klee_range(0, 1000, "up_sep");
    int down_sep = klee_range(0, 1000, "down_sep");
    int other_rac = klee_range(0, 3, "other_rac");
    int r = alt_sep_test(1, own_alt, rate, other_alt, level, up_sep, down_sep,
                         other_rac, climb_inhibit, 400);
    if (r != UNRESOLVED)
      advisories++;
  }
  return advisories;
}
