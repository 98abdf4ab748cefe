/* Shared helpers: failures carried up to main, messages, paths, directory trees. */
#ifndef RT_UTIL_H
#define RT_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Exit codes of the runtime itself (README.md lists them for users). */
enum {
    RT_EXIT_USAGE = 64,       /* unknown --appimage-* option or bad argument */
    RT_EXIT_DAMAGED = 65,     /* not an AppImage, truncated file, corrupt squashfs */
    RT_EXIT_UNAVAILABLE = 69, /* neither FUSE nor a writable extraction place */
    RT_EXIT_OSERR = 71,       /* fork, thread, memory or similar system failure */
    RT_EXIT_CANTCREAT = 73,   /* --appimage-extract cannot write its output */
    RT_EXIT_IOERR = 74,       /* the image file cannot be read */
    RT_EXIT_NOEXEC = 126,     /* AppRun is not executable */
    RT_EXIT_NOTFOUND = 127,   /* the image has no AppRun */
};

/* Said where the image, mounted or extracted, has no AppRun. */
#define MSG_NO_APPRUN "this AppImage has no AppRun at its root, so there is nothing to start"

/* A failure on its way up to main: the exit code it maps to and a sentence for the user. */
struct failure {
    int code;
    char msg[2048];
};

void fail_set(struct failure *f, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Appends text to the message (used to add a reason or a hint). */
void fail_append(struct failure *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The name messages start with: the image's file name. */
void msg_set_prefix(const char *prefix);
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vmsg(const char *fmt, va_list ap);

/* snprintf that reports truncation as false. */
bool fmt_path(char *out, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Whether a directory entry's name is safe to create: not empty, ".", "..", and without '/'. */
bool name_component_safe(const char *name);
/* Creates every missing directory of path (mode for the ones it creates). 0 or -1 with errno. */
int mkdir_parents(const char *path, mode_t mode);
/* Removes a tree without following symlinks; read-only directories are made writable first.
 * 0 or -1 with errno (a missing path is success). */
int remove_tree(const char *path);
/* Fully writes a buffer. 0 or -1 with errno. */
int write_all(int fd, const void *buf, size_t len);
/* Shortens $HOME to ~ in a path for display; returns out. */
const char *display_path(const char *path, char *out, size_t size);

#endif
