/* The library of the tiny project: one function its program links, one it
   does not. */
void caps(char *s);
int tiny_unused(int x);
