/* A WBS-like reactive wheel-brake controller (after the ARP 4761 example):
 * three steps over symbolic pedal, auto-brake and skid inputs; the monitor
 * switches to the alternate hydraulic system after two skids in a row, and
 * an assert checks the commanded pressure stays within the valve's range.
 * Counted by enumerating all input combinations (2 x (4 x 2)^2 x 4).
 * expect-completed: 164
 * expect-error: assert 53 13
 * expect-tests: 177
 */
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
  if (pedal <= 2)
    return 1;
  return 2;
}

int wbs_step(struct wbs *w, int pedal, int autobrake, int skid) {
  int cmd = pedal_command(pedal);
  if (cmd == 0 && autobrake)
    cmd = 1;
  if (skid) {
    w->skid_count++;
    if (w->skid_count >= 2)
      w->mode = ALTERNATE;
  } else {
    w->skid_count = 0;
  }
  int pressure;
  if (w->mode == NORMAL) {
    if (skid)
      pressure = 0;
    else
      pressure = cmd * 50;
  } else {
    /* The alternate system has no anti-skid and overshoots on a rising
     * command: with a full command that exceeds the valve's range. */
    pressure = cmd * 40;
    if (cmd > w->prev_cmd)
      pressure += 30;
  }
  assert(pressure <= 100);
  w->prev_cmd = cmd;
  return pressure;
}

int main(void) {
  struct wbs w = {NORMAL, 0, 0};
  int total = 0;
  int autobrake = klee_range(0, 2, "autobrake");
  for (int i = 0; i < 3; i++) {
    int pedal = klee_range(0, 4, "pedal");
    /* The skid sensor is polled on the first two steps only. */
    int skid = i < 2 ? klee_range(0, 2, "skid") : 0;
    total += wbs_step(&w, pedal, autobrake, skid);
  }
  return total / 50;
}
