#include "extract.h" /* squashfuse's headers first (sqfs.h) */

#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sha256.h"

#define MAX_ROOTS 2

struct root_attempt {
    char path[PATH_MAX];
    char problem[1024];
};

static bool is_hex64(const char *s)
{
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return s[64] == '\0' || s[64] == '.' || s[64] == '-';
}

/* The cache roots to try, in order. */
static int candidate_roots(struct root_attempt roots[MAX_ROOTS])
{
    int n = 0;
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        n += fmt_path(roots[n].path, sizeof roots[n].path, "%s/%s", xdg, CACHE_DIR_NAME);
    else if (home && home[0] == '/')
        n += fmt_path(roots[n].path, sizeof roots[n].path, "%s/.cache/%s", home, CACHE_DIR_NAME);
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/')
        tmp = "/tmp";
    n += fmt_path(roots[n].path, sizeof roots[n].path, "%s/%s-%u", tmp, CACHE_DIR_NAME, (unsigned)geteuid());
    return n;
}

/* Creates the root if needed and checks that it is a private, writable folder of this user. */
static int prepare_root(struct root_attempt *r)
{
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", r->path);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        if (mkdir_parents(parent, 0700) != 0) {
            snprintf(r->problem, sizeof r->problem, "%s", strerror(errno));
            return -1;
        }
    }
    if (mkdir(r->path, 0700) != 0 && errno != EEXIST) {
        snprintf(r->problem, sizeof r->problem, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(r->path, &st) != 0) {
        snprintf(r->problem, sizeof r->problem, "%s", strerror(errno));
        return -1;
    }
    /* In a shared folder such as /tmp, another user could have made it first and planted files. */
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
        snprintf(r->problem, sizeof r->problem, "not a private folder of this user");
        return -1;
    }
    if (access(r->path, W_OK) != 0) {
        snprintf(r->problem, sizeof r->problem, "%s", strerror(errno));
        return -1;
    }
    return 0;
}

static void memo_name(char *out, size_t size, const char *root, const struct stat *st)
{
    snprintf(out, size, "%s/by-file/%llx-%llx-%llx-%lld.%09ld-%lld.%09ld", root, (unsigned long long)st->st_dev,
             (unsigned long long)st->st_ino, (unsigned long long)st->st_size, (long long)st->st_mtim.tv_sec,
             st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

static bool memo_read(const char *root, const struct image *img, char hex[65])
{
    char name[PATH_MAX], target[128];
    memo_name(name, sizeof name, root, &img->st);
    ssize_t n = readlink(name, target, sizeof target - 1);
    if (n != 64)
        return false;
    target[n] = '\0';
    if (!is_hex64(target))
        return false;
    memcpy(hex, target, 65);
    return true;
}

static void memo_write(const char *root, const struct image *img, const char *hex)
{
    char dir[PATH_MAX], name[PATH_MAX], tmp[PATH_MAX + 32];
    if (!fmt_path(dir, sizeof dir, "%s/by-file", root))
        return;
    mkdir(dir, 0700);
    memo_name(name, sizeof name, root, &img->st);
    snprintf(tmp, sizeof tmp, "%s.%d", name, (int)getpid());
    unlink(tmp);
    if (symlink(hex, tmp) != 0 || rename(tmp, name) != 0)
        unlink(tmp);
}

static int hash_image(const struct image *img, char hex[65], struct failure *f)
{
    enum { BUF = 1 << 20 };
    unsigned char *buf = malloc(BUF);
    if (!buf) {
        fail_set(f, RT_EXIT_OSERR, "out of memory");
        return -1;
    }
    struct sha256 ctx;
    sha256_init(&ctx);
    for (off_t pos = 0;;) {
        ssize_t n = pread(img->fd, buf, BUF, pos);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fail_set(f, RT_EXIT_IOERR, "cannot read %s: %s", img->path, strerror(errno));
            free(buf);
            return -1;
        }
        if (n == 0)
            break;
        sha256_update(&ctx, buf, (size_t)n);
        pos += n;
    }
    unsigned char digest[32];
    sha256_final(&ctx, digest);
    sha256_hex(digest, hex);
    free(buf);
    return 0;
}

/* Opens path and locks it; retries when a pruner removed the file meanwhile, so the lock held is
 * always the one on the file that is there. Returns the descriptor or -1. */
static int lock_file(const char *path, int operation)
{
    for (;;) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
            return -1;
        while (flock(fd, operation) != 0) {
            if (errno != EINTR) {
                close(fd);
                return -1;
            }
        }
        struct stat held, now;
        if (fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_ino == now.st_ino && held.st_dev == now.st_dev)
            return fd;
        close(fd);
    }
}

static bool is_dir(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Removes .tmp-<hex>-* folders: extractions of the same image that a crash interrupted. */
static void remove_unfinished(const char *root, const char *hex)
{
    DIR *dir = opendir(root);
    if (!dir)
        return;
    char prefix[80], path[PATH_MAX];
    snprintf(prefix, sizeof prefix, ".tmp-%s-", hex);
    struct dirent *ent;
    while ((ent = readdir(dir)) != NULL)
        if (strncmp(ent->d_name, prefix, strlen(prefix)) == 0 &&
            fmt_path(path, sizeof path, "%s/%s", root, ent->d_name))
            remove_tree(path);
    closedir(dir);
}

/* Extracts into a fresh temporary folder, makes it durable, then renames it into place. */
static int extract_into(struct cache_use *use, const struct image *img, struct failure *f)
{
    char tmp[PATH_MAX];
    if (!fmt_path(tmp, sizeof tmp, "%s/.tmp-%s-XXXXXX", use->root, use->hex) || !mkdtemp(tmp)) {
        fail_set(f, RT_EXIT_CANTCREAT, "%s", strerror(errno));
        return -1;
    }
    sqfs fs;
    if (sqfs_open_payload(&fs, img, f) != 0) {
        remove_tree(tmp);
        return -1;
    }
    if (sqfs_find_apprun(&fs, f) != 0) {
        sqfs_destroy(&fs);
        remove_tree(tmp);
        return -1;
    }
    struct extract_opts opts = {0};
    int res = extract_tree(&fs, tmp, &opts, f);
    sqfs_destroy(&fs);
    if (res == 0) {
        /* Written out before it becomes visible: a power cut never leaves a complete-looking, empty tree. */
        int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            syncfs(dfd);
            close(dfd);
        }
        if (rename(tmp, use->appdir) != 0) {
            if (is_dir(use->appdir)) {
                remove_tree(tmp); /* someone else finished first */
                return 0;
            }
            fail_set(f, RT_EXIT_CANTCREAT, "cannot rename %s: %s", tmp, strerror(errno));
            res = -1;
        } else {
            int rfd = open(use->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (rfd >= 0) {
                fsync(rfd);
                close(rfd);
            }
            use->extracted_now = true;
        }
    }
    if (res != 0)
        remove_tree(tmp);
    return res;
}

/* Uses the extraction under root, making it if needed. */
static int use_root(struct cache_use *use, const struct image *img, const char *notice, struct failure *f)
{
    char lock_path[PATH_MAX + 80], extracting_path[PATH_MAX + 80];
    fmt_path(use->appdir, sizeof use->appdir, "%s/%s", use->root, use->hex);
    fmt_path(lock_path, sizeof lock_path, "%s/%s.lock", use->root, use->hex);
    fmt_path(extracting_path, sizeof extracting_path, "%s/%s.extracting", use->root, use->hex);

    use->use_lock = lock_file(lock_path, LOCK_SH);
    if (use->use_lock < 0) {
        fail_set(f, RT_EXIT_CANTCREAT, "%s", strerror(errno));
        return -1;
    }
    if (is_dir(use->appdir)) {
        utimensat(AT_FDCWD, use->appdir, NULL, 0); /* last use, for pruning */
        return 0;
    }
    int xfd = lock_file(extracting_path, LOCK_EX | LOCK_NB);
    if (xfd < 0 && errno == EWOULDBLOCK) {
        msg("waiting for another start of this AppImage to finish extracting it...");
        xfd = lock_file(extracting_path, LOCK_EX);
    }
    if (xfd < 0) {
        fail_set(f, RT_EXIT_CANTCREAT, "%s", strerror(errno));
        goto fail;
    }
    int res = 0;
    if (!is_dir(use->appdir)) {
        remove_unfinished(use->root, use->hex);
        char shown[PATH_MAX];
        msg("%s; extracting the application to %s (once: later starts reuse it)...", notice,
            display_path(use->appdir, shown, sizeof shown));
        res = extract_into(use, img, f);
    }
    close(xfd);
    if (res == 0)
        return 0;
fail:
    close(use->use_lock);
    use->use_lock = -1;
    return -1;
}

int cache_prepare(struct cache_use *use, const struct image *img, const char *reason, bool fuse_failed,
                  struct failure *f)
{
    memset(use, 0, sizeof *use);
    use->use_lock = -1;
    struct root_attempt roots[MAX_ROOTS];
    memset(roots, 0, sizeof roots);
    int count = candidate_roots(roots);
    bool hashed = false;
    for (int i = 0; i < count; i++) {
        struct root_attempt *r = &roots[i];
        if (prepare_root(r) != 0)
            continue;
        snprintf(use->root, sizeof use->root, "%s", r->path);
        if (!memo_read(r->path, img, use->hex)) {
            if (!hashed && hash_image(img, use->hex, f) != 0)
                return -1;
            hashed = true;
            memo_write(r->path, img, use->hex);
        }
        char notice[2048], shown[PATH_MAX];
        if (i > 0 && roots[0].problem[0])
            snprintf(notice, sizeof notice, "%s; %s cannot be used (%s)", reason,
                     display_path(roots[0].path, shown, sizeof shown), roots[0].problem);
        else
            snprintf(notice, sizeof notice, "%s", reason);
        struct failure attempt = {0};
        if (use_root(use, img, notice, &attempt) == 0)
            return 0;
        if (attempt.code != RT_EXIT_CANTCREAT) { /* a bad image, not a bad place */
            *f = attempt;
            return -1;
        }
        fmt_path(r->problem, sizeof r->problem, "%s", attempt.msg);
    }

    fail_set(f, RT_EXIT_UNAVAILABLE, "cannot start: %s, and there is no writable place to extract the application:",
             reason);
    for (int i = 0; i < count; i++) {
        char shown[PATH_MAX];
        fail_append(f, "\n  %s: %s", display_path(roots[i].path, shown, sizeof shown), roots[i].problem);
    }
    fail_append(f, "\nTo fix it, do one of these:");
    if (fuse_failed)
        fail_append(f, "\n  - install FUSE 3 (Debian, Ubuntu: sudo apt install fuse3; Fedora: sudo dnf install fuse3);"
                       " in a container, give it /dev/fuse (docker run --device /dev/fuse --cap-add SYS_ADMIN)");
    else
        fail_append(f, "\n  - unset APPIMAGE_EXTRACT_AND_RUN to run through FUSE");
    fail_append(f, "\n  - set XDG_CACHE_HOME or TMPDIR to a writable folder with room for the application");
    fail_append(f, "\n  - extract it by hand: %s --appimage-extract, then run squashfs-root/AppRun", img->name);
    return -1;
}

static bool older_than(const struct stat *st, time_t days)
{
    return st->st_mtim.tv_sec < time(NULL) - days * 24 * 3600;
}

/* Removes one old extraction unless a running start holds it. */
static void prune_entry(const char *root, const char *hex)
{
    char dir[PATH_MAX], lock_path[PATH_MAX], trash[PATH_MAX], extracting[PATH_MAX];
    struct stat st;
    if (!fmt_path(dir, sizeof dir, "%s/%s", root, hex) || lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
        !older_than(&st, CACHE_UNUSED_DAYS))
        return;
    fmt_path(lock_path, sizeof lock_path, "%s/%s.lock", root, hex);
    fmt_path(extracting, sizeof extracting, "%s/%s.extracting", root, hex);
    int fd = lock_file(lock_path, LOCK_EX | LOCK_NB);
    if (fd < 0)
        return; /* in use */
    /* Out of sight in one step, so no start ever sees a half-removed tree. */
    bool moved = fmt_path(trash, sizeof trash, "%s/.trash-%s-%d", root, hex, (int)getpid()) && rename(dir, trash) == 0;
    unlink(lock_path);
    unlink(extracting);
    close(fd);
    if (moved)
        remove_tree(trash);
}

/* A .tmp-<hex>-* folder whose extraction lock is free was left by a crash. */
static void prune_unfinished(const char *root, const char *name)
{
    char lock_path[PATH_MAX], path[PATH_MAX], hex[65];
    memcpy(hex, name + 5, 64);
    hex[64] = '\0';
    if (!fmt_path(lock_path, sizeof lock_path, "%s/%s.extracting", root, hex) ||
        !fmt_path(path, sizeof path, "%s/%s", root, name))
        return;
    int fd = lock_file(lock_path, LOCK_EX | LOCK_NB);
    if (fd < 0)
        return;
    remove_tree(path);
    close(fd);
}

static void prune_memos(const char *root)
{
    char dir_path[PATH_MAX];
    if (!fmt_path(dir_path, sizeof dir_path, "%s/by-file", root))
        return;
    DIR *dir = opendir(dir_path);
    if (!dir)
        return;
    struct dirent *ent;
    while ((ent = readdir(dir)) != NULL) {
        char target[128], extraction[PATH_MAX];
        ssize_t n = readlinkat(dirfd(dir), ent->d_name, target, sizeof target - 1);
        if (n < 0)
            continue;
        target[n] = '\0';
        if (!fmt_path(extraction, sizeof extraction, "%s/%s", root, target) || !is_dir(extraction))
            unlinkat(dirfd(dir), ent->d_name, 0);
    }
    closedir(dir);
}

void cache_prune(const struct cache_use *use)
{
    DIR *dir = opendir(use->root);
    if (!dir)
        return;
    struct dirent *ent;
    while ((ent = readdir(dir)) != NULL) {
        const char *name = ent->d_name;
        if (strlen(name) == 64 && is_hex64(name) && strcmp(name, use->hex) != 0) {
            prune_entry(use->root, name);
        } else if (strncmp(name, ".tmp-", 5) == 0 && strlen(name) > 69 && is_hex64(name + 5) &&
                   strncmp(name + 5, use->hex, 64) != 0) {
            prune_unfinished(use->root, name);
        } else if (strncmp(name, ".trash-", 7) == 0) {
            char path[PATH_MAX];
            if (fmt_path(path, sizeof path, "%s/%s", use->root, name))
                remove_tree(path);
        }
    }
    closedir(dir);
    prune_memos(use->root);
}

void cache_release(struct cache_use *use)
{
    if (use->use_lock >= 0)
        close(use->use_lock);
    use->use_lock = -1;
}
