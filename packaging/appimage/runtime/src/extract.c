#include "extract.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (256 * 1024)

/* A directory seen on the way down: its mode and time are applied once its contents are written. */
struct pending_dir {
    char *path;
    mode_t mode;
    time_t mtime;
};

struct extraction {
    sqfs *fs;
    const char *dest;
    const struct extract_opts *opts;
    struct failure *f;
    struct pending_dir *dirs;
    size_t depth, capacity;
    char *buf;
};

static int cant_write(struct extraction *x, const char *path, const char *what)
{
    fail_set(x->f, RT_EXIT_CANTCREAT, "cannot %s %s: %s", what, path, strerror(errno));
    return -1;
}

static int damaged(struct extraction *x, const char *inner)
{
    fail_set(x->f, RT_EXIT_DAMAGED, "this AppImage is damaged: %s cannot be read from it. Download it again.",
             inner);
    return -1;
}

/* A directory at path that is really a directory (an existing symlink or file there is replaced). */
static int ensure_dir(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0) {
        /* A folder from an earlier extraction may be read-only: writable until finish_dir sets its mode. */
        if (S_ISDIR(st.st_mode))
            return (st.st_mode & 0700) == 0700 ? 0 : chmod(path, (st.st_mode & 07777) | 0700);
        if (unlink(path) != 0)
            return -1;
    }
    return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

/* Creates the missing directories of dest/inner's parents (needed when a pattern skipped them). */
static int ensure_parents(struct extraction *x, const char *inner)
{
    char path[PATH_MAX];
    if (!fmt_path(path, sizeof path, "%s/%s", x->dest, inner)) {
        errno = ENAMETOOLONG;
        return cant_write(x, inner, "create");
    }
    for (char *p = path + strlen(x->dest) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        int res = ensure_dir(path);
        *p = '/';
        if (res != 0)
            return cant_write(x, path, "create the folder");
    }
    return 0;
}

static int write_file(struct extraction *x, sqfs_inode *inode, const char *path, const char *inner)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST && unlink(path) == 0)
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return cant_write(x, path, "create");
    uint64_t size = inode->xtra.reg.file_size;
    for (uint64_t done = 0; done < size;) {
        sqfs_off_t want = (sqfs_off_t)(size - done < CHUNK ? size - done : CHUNK);
        if (sqfs_read_range(x->fs, inode, (sqfs_off_t)done, &want, x->buf) != SQFS_OK || want <= 0) {
            close(fd);
            return damaged(x, inner);
        }
        if (write_all(fd, x->buf, (size_t)want) != 0) {
            int saved = errno;
            close(fd);
            errno = saved;
            return cant_write(x, path, "write");
        }
        done += (uint64_t)want;
    }
    struct timespec times[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = inode->base.mtime}};
    if (fchmod(fd, inode->base.mode & 0777) != 0 || futimens(fd, times) != 0 || close(fd) != 0)
        return cant_write(x, path, "finish");
    return 0;
}

static int write_symlink(struct extraction *x, sqfs_inode *inode, const char *path, const char *inner)
{
    size_t size = inode->xtra.symlink_size + 1;
    char *target = malloc(size);
    if (!target || sqfs_readlink(x->fs, inode, target, &size) != SQFS_OK) {
        free(target);
        return damaged(x, inner);
    }
    int res = symlink(target, path);
    if (res != 0 && errno == EEXIST && unlink(path) == 0)
        res = symlink(target, path);
    free(target);
    if (res != 0)
        return cant_write(x, path, "create the link");
    struct timespec times[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = inode->base.mtime}};
    utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW);
    return 0;
}

static int push_dir(struct extraction *x, const char *path, const sqfs_inode *inode)
{
    if (x->depth == x->capacity) {
        size_t capacity = x->capacity ? 2 * x->capacity : 32;
        struct pending_dir *grown = realloc(x->dirs, capacity * sizeof *grown);
        if (!grown)
            return cant_write(x, path, "remember the folder");
        x->dirs = grown;
        x->capacity = capacity;
    }
    char *copy = strdup(path);
    if (!copy)
        return cant_write(x, path, "remember the folder");
    x->dirs[x->depth++] = (struct pending_dir){copy, inode->base.mode & 0777, inode->base.mtime};
    return 0;
}

/* A directory's contents are done: give it its own mode and time (if it was created at all). */
static int finish_dir(struct extraction *x)
{
    if (x->depth == 0)
        return 0;
    struct pending_dir *d = &x->dirs[--x->depth];
    struct stat st;
    int res = 0;
    if (lstat(d->path, &st) == 0 && S_ISDIR(st.st_mode)) {
        struct timespec times[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = d->mtime}};
        if (chmod(d->path, d->mode) != 0 || utimensat(AT_FDCWD, d->path, times, 0) != 0)
            res = cant_write(x, d->path, "finish the folder");
    }
    free(d->path);
    return res;
}

static int extract_entry(struct extraction *x, sqfs_traverse *trv)
{
    const char *inner = trv->path;
    if (!name_component_safe(sqfs_dentry_name(&trv->entry))) {
        fail_set(x->f, RT_EXIT_DAMAGED, "this AppImage is damaged: it holds an entry with an unsafe name (%s).",
                 inner);
        return -1;
    }
    sqfs_inode inode;
    if (sqfs_inode_get(x->fs, &inode, sqfs_dentry_inode(&trv->entry)) != SQFS_OK)
        return damaged(x, inner);
    char path[PATH_MAX];
    if (!fmt_path(path, sizeof path, "%s/%s", x->dest, inner)) {
        errno = ENAMETOOLONG;
        return cant_write(x, inner, "create");
    }
    bool wanted = !x->opts->pattern || fnmatch(x->opts->pattern, inner, 0) == 0;
    if (S_ISDIR(inode.base.mode)) {
        /* The traversal goes into every directory; its end marker comes back through finish_dir. */
        if (push_dir(x, path, &inode) != 0)
            return -1;
        if (!wanted)
            return 0;
    } else if (!wanted) {
        return 0;
    }
    if (x->opts->pattern && ensure_parents(x, inner) != 0)
        return -1;
    int res = 0;
    if (S_ISDIR(inode.base.mode)) {
        if (ensure_dir(path) != 0)
            res = cant_write(x, path, "create the folder");
    } else if (S_ISREG(inode.base.mode)) {
        res = write_file(x, &inode, path, inner);
    } else if (S_ISLNK(inode.base.mode)) {
        res = write_symlink(x, &inode, path, inner);
    } else if (S_ISFIFO(inode.base.mode)) {
        unlink(path);
        if (mkfifo(path, inode.base.mode & 0777) != 0)
            res = cant_write(x, path, "create the pipe");
    } else {
        return 0; /* devices and sockets: an application image has no use for them */
    }
    if (res == 0 && x->opts->list_prefix)
        printf("%s%s\n", x->opts->list_prefix, inner);
    return res;
}

int extract_tree(sqfs *fs, const char *dest, const struct extract_opts *opts, struct failure *f)
{
    struct extraction x = {.fs = fs, .dest = dest, .opts = opts, .f = f, .buf = malloc(CHUNK)};
    if (!x.buf) {
        fail_set(f, RT_EXIT_OSERR, "out of memory");
        return -1;
    }
    sqfs_inode root;
    sqfs_traverse trv;
    if (sqfs_inode_get(fs, &root, sqfs_inode_root(fs)) != SQFS_OK ||
        sqfs_traverse_open_inode(&trv, fs, &root) != SQFS_OK) {
        free(x.buf);
        return damaged(&x, "its root folder");
    }
    int res = 0;
    sqfs_err err = SQFS_OK;
    while (res == 0 && sqfs_traverse_next(&trv, &err)) {
        if (trv.dir_end)
            res = finish_dir(&x);
        else
            res = extract_entry(&x, &trv);
    }
    if (res == 0 && err != SQFS_OK)
        res = damaged(&x, "its folder listing");
    sqfs_traverse_close(&trv);
    while (x.depth > 0) {
        if (res == 0)
            res = finish_dir(&x);
        else
            free(x.dirs[--x.depth].path);
    }
    if (res == 0 && chmod(dest, root.base.mode & 0777) != 0)
        res = cant_write(&x, dest, "finish the folder");
    if (opts->list_prefix)
        fflush(stdout);
    free(x.dirs);
    free(x.buf);
    return res;
}
