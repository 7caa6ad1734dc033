/* The model's numbering of a native run's files (status.c), which readdir
 * (dirs.c) gives its entries too. */
#ifndef MNEMO_REPLAY_STATUS_H
#define MNEMO_REPLAY_STATUS_H

/* The model's inode number of the file the kernel numbers `ino` on `dev`,
 * of readdir's type `type` (DT_REG, ...; DT_UNKNOWN numbers nothing new). */
unsigned long __mnemo_model_inode(unsigned long dev, unsigned long ino, unsigned type);

#endif
