/* A terminal keeps the settings and the window size a program gives it,
 * as the pseudo-terminal of the native replay does, and starts as that
 * one does (raw, no window size): stty sets a mode,
 * reads it back and fails only if it did not stick. Parity does not: a
 * pseudo-terminal has eight data bits and no parity bit, whatever is
 * asked. 2 paths: stdin a terminal (the settings round-trip) or not
 * (ENOTTY).
 * program-args: --sym-stdin 1
 * expect-completed: 2
 * expect-tests: 2
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <termios.h>

int main(void) {
  struct termios mode, back;
  if (tcgetattr(0, &mode) != 0) {
    assert(errno == ENOTTY);
    puts("not a terminal");
    return 0;
  }
  struct winsize size0;
  assert(ioctl(0, TIOCGWINSZ, &size0) == 0);
  /* What the replay's pseudo-terminal starts as, printed to be compared. */
  printf("raw: %o %o %o %o, intr %d, %dx%d\n", mode.c_iflag, mode.c_oflag, mode.c_cflag,
         mode.c_lflag, mode.c_cc[VINTR], size0.ws_row, size0.ws_col);
  mode.c_cflag ^= PARENB;
  mode.c_lflag &= ~ECHO;
  assert(cfsetospeed(&mode, B1200) == 0);
  assert(tcsetattr(0, TCSANOW, &mode) == 0);
  assert(tcgetattr(0, &back) == 0);
  assert(back.c_lflag == mode.c_lflag && !(back.c_lflag & ECHO));
  assert(!(back.c_cflag & PARENB) && (back.c_cflag & CSIZE) == CS8);
  assert(cfgetospeed(&back) == B1200);
  struct winsize size = {.ws_row = 40, .ws_col = 100};
  assert(ioctl(0, TIOCSWINSZ, &size) == 0);
  struct winsize got;
  assert(ioctl(0, TIOCGWINSZ, &got) == 0);
  assert(got.ws_row == 40 && got.ws_col == 100);
  printf("terminal: echo off, %d rows, %d columns\n", got.ws_row, got.ws_col);
  return 0;
}
