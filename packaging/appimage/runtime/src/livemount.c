#include "livemount.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define FUSE_SUPER_MAGIC 0x65735546
/* /proc/self/mountinfo is read up to this size (a machine with tens of thousands of mounts is cut short). */
#define MOUNTINFO_MAX (8u << 20)

/* Copies the next space-separated field of *p into out (escapes undone) and moves *p past it.
 * false when there is no field or it does not fit. */
static bool next_field(const char **p, char *out, size_t size)
{
    const char *s = *p;
    while (*s == ' ')
        s++;
    if (*s == '\0')
        return false;
    size_t n = 0;
    bool fits = true;
    while (*s && *s != ' ') {
        char c = *s++;
        if (c == '\\' && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7') {
            c = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
            s += 3;
        }
        if (n + 1 < size)
            out[n++] = c;
        else
            fits = false;
    }
    out[n] = '\0';
    *p = s;
    return fits;
}

int mountinfo_parse_line(const char *line, struct mount_entry *e)
{
    memset(e, 0, sizeof *e);
    const char *p = line;
    char field[PATH_MAX];
    /* mount ID, parent ID */
    if (!next_field(&p, field, sizeof field) || !next_field(&p, field, sizeof field))
        return -1;
    if (!next_field(&p, field, sizeof field) || sscanf(field, "%u:%u", &e->major, &e->minor) != 2)
        return -1;
    if (!next_field(&p, e->root, sizeof e->root) || !next_field(&p, e->mountpoint, sizeof e->mountpoint) ||
        !next_field(&p, e->options, sizeof e->options))
        return -1;
    /* Optional fields (shared:N, master:N...) up to the "-" separator. */
    for (;;) {
        if (!next_field(&p, field, sizeof field))
            return -1;
        if (strcmp(field, "-") == 0)
            break;
    }
    if (!next_field(&p, e->fstype, sizeof e->fstype) || !next_field(&p, e->source, sizeof e->source) ||
        !next_field(&p, e->super_options, sizeof e->super_options))
        return -1;
    return 0;
}

int mountinfo_find(const char *text, const char *mountpoint, struct mount_entry *e)
{
    bool found = false;
    struct mount_entry candidate;
    char line[3 * PATH_MAX];
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        if (len < sizeof line) {
            memcpy(line, p, len);
            line[len] = '\0';
            if (mountinfo_parse_line(line, &candidate) == 0 && strcmp(candidate.mountpoint, mountpoint) == 0) {
                *e = candidate; /* a later mount on the same point hides the earlier ones */
                found = true;
            }
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    return found ? 0 : -1;
}

void live_mount_fsname(char *out, size_t size, const char *image_name, const char *identity)
{
    size_t i = 0;
    size_t room = size > IMAGE_IDENTITY_LEN + 2 ? size - IMAGE_IDENTITY_LEN - 2 : 0;
    for (; image_name[i] && i < room && i < 128; i++) {
        char c = image_name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                  c == '_' || c == '-' || c == '+';
        out[i] = ok ? c : '_';
    }
    snprintf(out + i, size - i, "@%s", identity);
}

/* Whether a list of words separated by sep (empty words skipped) holds exactly this non-empty word. */
static bool list_has(const char *list, char sep, const char *word)
{
    size_t len = strlen(word);
    const char seps[] = {sep, '\0'};
    for (const char *p = list; len && *p;) {
        size_t n = strcspn(p, seps);
        if (n == len && strncmp(p, word, len) == 0)
            return true;
        p += n;
        while (*p == sep)
            p++;
    }
    return false;
}

bool mount_entry_serves(const struct mount_entry *e, uid_t uid, const char *identity, char *why, size_t size)
{
    if (strcmp(e->fstype, LIVE_MOUNT_TYPE) != 0) {
        snprintf(why, size, "it is a %s mount, not one of this runtime's", e->fstype);
        return false;
    }
    /* user_id is set by the kernel from the user who mounted (fusermount3 passes its caller's): a mount made
     * by anyone else could serve other files under the same name. */
    char owner[32];
    snprintf(owner, sizeof owner, "user_id=%u", (unsigned)uid);
    if (!list_has(e->super_options, ',', owner)) {
        snprintf(why, size, "it was mounted by another user (%s)", e->super_options);
        return false;
    }
    if (!list_has(e->options, ',', "ro") || strcmp(e->root, "/") != 0) {
        snprintf(why, size, "it is not a read-only mount of a whole image");
        return false;
    }
    const char *at = strrchr(e->source, '@');
    if (!at || strcmp(at + 1, identity) != 0) {
        snprintf(why, size, "it serves another image (%s)", e->source);
        return false;
    }
    return true;
}

bool live_mount_command(const char *arg)
{
    return list_has(RT_LIVE_MOUNT_COMMANDS, ' ', arg);
}

/* The whole of /proc/self/mountinfo, NUL-terminated (free it), or NULL. */
static char *read_mountinfo(void)
{
    int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 64 * 1024, len = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        if (len == cap) {
            if (cap >= MOUNTINFO_MAX)
                break;
            char *bigger = realloc(buf, cap * 2 + 1);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    close(fd);
    if (buf)
        buf[len] = '\0';
    return buf;
}

int live_mount_verify(const struct image *img, const char *path, char mountpoint[PATH_MAX], char *why, size_t size)
{
    if (path[0] != '/') {
        snprintf(why, size, "%s is not an absolute path", path);
        return -1;
    }
    if (!realpath(path, mountpoint)) {
        snprintf(why, size, "%s: %s", path, strerror(errno));
        return -1;
    }
    char identity[IMAGE_IDENTITY_LEN + 1];
    struct failure f = {0};
    if (image_identity(img, identity, &f) != 0) {
        snprintf(why, size, "%s", f.msg);
        return -1;
    }
    char *table = read_mountinfo();
    if (!table) {
        snprintf(why, size, "the mount table cannot be read (is /proc mounted?)");
        return -1;
    }
    struct mount_entry e;
    int found = mountinfo_find(table, mountpoint, &e);
    free(table);
    if (found != 0) {
        snprintf(why, size, "nothing is mounted on %s", mountpoint);
        return -1;
    }
    if (!mount_entry_serves(&e, getuid(), identity, why, size))
        return -1;
    /* The folder the path leads to now must be that very mount, and a FUSE one. */
    int fd = open(mountpoint, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, size, "%s: %s", mountpoint, strerror(errno));
        return -1;
    }
    struct stat root, apprun;
    struct statfs fs;
    bool same = fstat(fd, &root) == 0 && major(root.st_dev) == e.major && minor(root.st_dev) == e.minor &&
                fstatfs(fd, &fs) == 0 && fs.f_type == FUSE_SUPER_MAGIC;
    bool has_apprun = same && fstatat(fd, "AppRun", &apprun, AT_SYMLINK_NOFOLLOW) == 0 &&
                      S_ISREG(apprun.st_mode) && apprun.st_dev == root.st_dev;
    close(fd);
    if (!same) {
        snprintf(why, size, "%s is not the mount the table lists", mountpoint);
        return -1;
    }
    if (!has_apprun) {
        snprintf(why, size, "%s holds no AppRun", mountpoint);
        return -1;
    }
    return 0;
}
