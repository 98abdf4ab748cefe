/* Starting AppRun as a child, passing signals on to it, and leaving the way it left. */
#ifndef RT_LAUNCH_H
#define RT_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

#include "util.h"

struct launch {
    const char *appdir;     /* the mounted or extracted tree */
    const char *image_path; /* APPIMAGE */
    const char *argv0;      /* ARGV0: how the user named the AppImage */
    char **args;            /* the application's arguments (NULL-terminated, without argv[0]) */
    bool die_with_runtime;  /* SIGTERM the child if the runtime dies (its files vanish with the mount) */
};

/* Blocks the signals the runtime handles itself, remembering the caller's mask and dispositions for the
 * child. Call before starting any thread, so every thread inherits the block. */
void signals_take_over(void);

/* Gives the caller's signal state back (in the child before exec, or when no child will be started). */
void signals_give_back(void);

/* Checks AppRun, sets APPIMAGE, APPDIR, ARGV0 and OWD, and starts it. 0, or -1 with f set. */
int launch_spawn(const struct launch *l, pid_t *child, struct failure *f);

/* Runs AppRun in this process (for a start from a live mount: nothing to serve or clean up). Returns only
 * when it cannot, with f set. */
void launch_exec(const struct launch *l, struct failure *f);

/* Waits until the child ends, passing on the signals sent to the runtime (not those the terminal sent
 * to the whole process group, which the child received itself). Returns its wait status. */
int launch_wait(pid_t child);

/* Waits for SIGINT, SIGTERM or SIGHUP (for --appimage-mount). */
void wait_for_stop_signal(void);

/* Exits with the child's exit code, or dies of the signal that killed it (without a core file). */
void exit_like(int status) __attribute__((noreturn));

#endif
