#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

#include <libpq-fe.h>

#ifdef __linux__
#include <spawn.h>

/* glibc (2.34 and later) provides this, but declares it only under _GNU_SOURCE, which Swift's
   Glibc module is built without. The Postgres module needs it so that `pg_ctl start`, which hands
   every inherited descriptor on to the server it daemonizes, inherits nothing of ours. */
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// Adds a spawn action closing every descriptor numbered `from` or higher in the child.
static inline int CLibPQ_spawn_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
#endif

#endif
