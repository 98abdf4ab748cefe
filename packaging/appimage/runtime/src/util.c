#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char msg_prefix[256] = "AppImage";

void fail_set(struct failure *f, int code, const char *fmt, ...)
{
    va_list ap;
    f->code = code;
    va_start(ap, fmt);
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    va_end(ap);
}

void fail_append(struct failure *f, const char *fmt, ...)
{
    size_t used = strlen(f->msg);
    va_list ap;
    if (used + 1 >= sizeof f->msg)
        return;
    va_start(ap, fmt);
    vsnprintf(f->msg + used, sizeof f->msg - used, fmt, ap);
    va_end(ap);
}

void msg_set_prefix(const char *prefix)
{
    snprintf(msg_prefix, sizeof msg_prefix, "%s", prefix);
}

void vmsg(const char *fmt, va_list ap)
{
    char line[4096];
    int n = snprintf(line, sizeof line, "%s: ", msg_prefix);
    if (n < 0 || (size_t)n >= sizeof line)
        n = 0;
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    size_t len = strlen(line);
    if (len + 1 < sizeof line && (len == 0 || line[len - 1] != '\n')) {
        line[len++] = '\n';
        line[len] = '\0';
    }
    /* One write so that lines from concurrent starts do not interleave. */
    (void)write_all(STDERR_FILENO, line, len);
}

void msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(fmt, ap);
    va_end(ap);
}

bool fmt_path(char *out, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, size, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < size;
}

bool name_component_safe(const char *name)
{
    return name[0] != '\0' && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && strchr(name, '/') == NULL;
}

int mkdir_parents(const char *path, mode_t mode)
{
    char buf[4096];
    if (!fmt_path(buf, sizeof buf, "%s", path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(buf, mode) != 0) {
            struct stat st;
            if (errno != EEXIST || stat(buf, &st) != 0)
                return -1;
            if (!S_ISDIR(st.st_mode)) {
                errno = ENOTDIR;
                return -1;
            }
        }
        *p = saved;
        if (saved == '\0')
            break;
    }
    return 0;
}

/* Removes the contents of the open directory dfd, then closes it. */
static int remove_contents(int dfd)
{
    DIR *dir = fdopendir(dfd);
    if (!dir) {
        close(dfd);
        return -1;
    }
    int result = 0;
    struct dirent *ent;
    while ((ent = readdir(dir)) != NULL) {
        const char *name = ent->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if (unlinkat(dirfd(dir), name, 0) == 0)
            continue;
        if (errno != EISDIR && errno != EPERM) {
            result = -1;
            continue;
        }
        int child = openat(dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child < 0 && errno == EACCES) {
            /* A directory without read permission: make it readable, we own it. */
            if (fchmodat(dirfd(dir), name, 0700, 0) == 0)
                child = openat(dirfd(dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (child < 0) {
            result = -1;
            continue;
        }
        (void)fchmod(child, 0700); /* read-only directories cannot lose their entries otherwise */
        if (remove_contents(child) != 0)
            result = -1;
        if (unlinkat(dirfd(dir), name, AT_REMOVEDIR) != 0)
            result = -1;
    }
    closedir(dir);
    return result;
}

int remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0 && errno == EACCES && chmod(path, 0700) == 0)
        dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    (void)fchmod(dfd, 0700);
    int saved_errno = 0;
    if (remove_contents(dfd) != 0)
        saved_errno = errno;
    if (rmdir(path) != 0)
        return -1;
    if (saved_errno) {
        errno = saved_errno;
        return -1;
    }
    return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

const char *display_path(const char *path, char *out, size_t size)
{
    const char *home = getenv("HOME");
    size_t hlen = home ? strlen(home) : 0;
    if (hlen > 1 && strncmp(path, home, hlen) == 0 && (path[hlen] == '/' || path[hlen] == '\0'))
        snprintf(out, size, "~%s", path + hlen);
    else
        snprintf(out, size, "%s", path);
    return out;
}
