#ifndef HERALD_MALLOC_H
#define HERALD_MALLOC_H

/// Pins glibc's mmap threshold at `bytes`, so every block that large (a big dictionary's storage as it grows) comes
/// from mmap and goes back to the system when freed. Left alone, glibc raises the threshold to the size of the first
/// such block freed, and later large blocks stay in the heap for good: a long-running server's resident memory grows
/// with every time one of its tables doubled. Does nothing where the C library is not glibc.
///
/// Returns 1 when the threshold was set, 0 otherwise.
int herald_pin_mmap_threshold(int bytes);

/// Gives the free pages of every malloc arena back to the system (glibc's malloc_trim), so memory a burst used (a
/// flood of connections, say) does not stay resident after it ended. Does nothing where the C library is not glibc.
///
/// Returns 1 when memory was released, 0 otherwise.
int herald_release_free_memory(void);

#endif
