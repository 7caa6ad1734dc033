/* The wheel-brake controller of testsuite/paper_wbs.c run for as long as
 * its input says the aircraft is rolling: a fresh pedal, auto-brake and
 * skid reading each step. The run's depth bound is the only bound, so the
 * tree grows with --max-depth (the parallel benchmark's deep subject of
 * the reactive kind). */
#include <assert.h>
#include <klee/klee.h>

enum { NORMAL, ALTERNATE };

struct wbs {
  int mode;
  int skid_count;
  int prev_cmd;
};

static int pedal_command(int pedal) {
  if (pedal == 0)
    return 0;
  return pedal <= 2 ? 1 : 2;
}

static int wbs_step(struct wbs *w, int pedal, int autobrake, int skid) {
  int cmd = pedal_command(pedal);
  if (cmd == 0 && autobrake)
    cmd = 1;
  if (skid) {
    if (++w->skid_count >= 3)
      w->mode = ALTERNATE;
  } else {
    w->skid_count = 0;
  }
  int pressure;
  if (w->mode == NORMAL)
    pressure = skid ? 0 : cmd * 50;
  else
    pressure = cmd * 40 + (cmd > w->prev_cmd ? 10 : 0);
  assert(pressure <= 100);
  w->prev_cmd = cmd;
  return pressure;
}

int main(void) {
  struct wbs w = {NORMAL, 0, 0};
  long total = 0;
  int steps = 0;
  while (klee_range(0, 2, "rolling")) {
    int pedal = klee_range(0, 4, "pedal");
    int autobrake = klee_range(0, 2, "autobrake");
    int skid = klee_range(0, 2, "skid");
    total += wbs_step(&w, pedal, autobrake, skid);
    steps++;
  }
  return steps ? (int)(total / steps / 50) : 0;
}
