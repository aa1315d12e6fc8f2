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

/// Caps glibc's malloc arenas at `count`, unless MALLOC_ARENA_MAX already set them. glibc gives up to eight arenas per
/// core, one per thread that contends; each keeps the memory its thread freed, so a burst spread over many threads (a
/// device import of 50,000 registrations, answered on the event loops and the tasks' threads) stays resident several
/// times over. Measured on a 1,000,000-device PostgreSQL broadcast: import peak 194 MB with glibc's default, 144 MB with
/// two arenas on two cores, at the same send rate. Does nothing where the C library is not glibc.
///
/// Returns 1 when the limit was set, 0 otherwise.
int herald_limit_malloc_arenas(int count);

#endif
