/* A wheel-brake controller (after the WBS subject of Qiu et al., ICSE
 * 2015, itself after the ARP 4761 example), written anew: update reads the
 * pedal, auto-brake and skid inputs and moves the controller's state (kept
 * in a struct, through a pointer, as a step function of generated C code
 * does). The drivers step it once (main1), twice (main2) and three times
 * (launch) on symbolic inputs. */
#include <klee/klee.h>

struct wbs {
  int nor_pressure;
  int alt_pressure;
  int sys_mode;
  int skid_count;
};

void update(struct wbs *w, int pedal, int autobrake, int skid) {
  int meter = 0;
  if (pedal == 0)
    meter = 0;
  else if (pedal == 1)
    meter = 1;
  else if (pedal == 2)
    meter = 2;
  else if (pedal == 3)
    meter = 3;
  else
    meter = 4;
  if (skid) {
    w->skid_count = w->skid_count + 1;
    if (w->skid_count > 1)
      w->sys_mode = 1;
  } else {
    w->skid_count = 0;
  }
  if (w->sys_mode == 0) {
    w->alt_pressure = 0;
    if (skid)
      w->nor_pressure = 0;
    else if (autobrake && meter < 2)
      w->nor_pressure = 2;
    else
      w->nor_pressure = meter;
  } else {
    w->nor_pressure = 0;
    if (autobrake)
      w->alt_pressure = meter < 1 ? 1 : meter;
    else
      w->alt_pressure = meter;
  }
}

static int run_steps(int n) {
  struct wbs w = {0, 0, 0, 0};
  int total = 0;
  for (int i = 0; i < n; i++) {
    int pedal = klee_range(0, 5, "pedal");
    int autobrake = klee_range(0, 2, "autobrake");
    int skid = klee_range(0, 2, "skid");
    update(&w, pedal, autobrake, skid);
    total += w.nor_pressure + w.alt_pressure;
  }
  return total;
}

int main1(void) { return run_steps(1); }
int main2(void) { return run_steps(2); }
int launch(void) { return run_steps(3); }
int main(void) { return launch(); }
