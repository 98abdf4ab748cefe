#include "fusemount.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The FUSE operations squashfuse's low-level library implements. */
static const struct fuse_lowlevel_ops squashfs_ops = {
    .lookup = sqfs_ll_op_lookup,
    .forget = sqfs_ll_op_forget,
    .getattr = sqfs_ll_op_getattr,
    .readlink = sqfs_ll_op_readlink,
    .open = sqfs_ll_op_open,
    .read = sqfs_ll_op_read,
    .release = sqfs_ll_op_release,
    .opendir = sqfs_ll_op_opendir,
    .readdir = sqfs_ll_op_readdir,
    .releasedir = sqfs_ll_op_releasedir,
    .statfs = stfs_ll_op_statfs,
    .getxattr = sqfs_ll_op_getxattr,
    .listxattr = sqfs_ll_op_listxattr,
    .create = sqfs_ll_op_create,
};

/* libfuse logs through this while mounting, so its lines join our message instead of the terminal. */
static char mount_messages[1024];

static void capture_fuse_log(enum fuse_log_level level, const char *fmt, va_list ap)
{
    (void)level;
    size_t used = strlen(mount_messages);
    if (used + 1 < sizeof mount_messages)
        vsnprintf(mount_messages + used, sizeof mount_messages - used, fmt, ap);
}

/* Where libfuse looks for fusermount3: its install directory, then PATH. */
static bool find_fusermount(void)
{
    if (access("/usr/bin/fusermount3", X_OK) == 0) {
        struct stat st;
        if (stat("/usr/bin/fusermount3", &st) == 0 && S_ISREG(st.st_mode))
            return true;
    }
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char dir[PATH_MAX], candidate[PATH_MAX];
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && len < sizeof dir) {
            memcpy(dir, path, len);
            dir[len] = '\0';
            struct stat st;
            if (fmt_path(candidate, sizeof candidate, "%s/fusermount3", dir) && stat(candidate, &st) == 0 &&
                S_ISREG(st.st_mode) && access(candidate, X_OK) == 0)
                return true;
        }
        path += len;
        if (*path == ':')
            path++;
    }
    return false;
}

bool fuse_usable(char *why, size_t size)
{
    struct stat st;
    if (stat("/dev/fuse", &st) != 0) {
        snprintf(why, size, "/dev/fuse is missing (%s)", strerror(errno));
        return false;
    }
    if (!S_ISCHR(st.st_mode)) {
        snprintf(why, size, "/dev/fuse is not a device");
        return false;
    }
    if (geteuid() != 0 && !find_fusermount()) {
        snprintf(why, size, "fusermount3 is not installed (package fuse3)");
        return false;
    }
    return true;
}

/* Letters safe inside a FUSE option value. */
static void option_safe(char *out, size_t size, const char *in)
{
    size_t i = 0;
    for (; in[i] && i + 1 < size; i++) {
        char c = in[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                  c == '_' || c == '-' || c == '+';
        out[i] = ok ? c : '_';
    }
    out[i] = '\0';
}

/* A fresh private (0700) directory: $TMPDIR, then /tmp. */
static int make_mountpoint(char *out, size_t size, const char *image_name)
{
    char prefix[8];
    option_safe(prefix, sizeof prefix, image_name);
    const char *tmpdir = getenv("TMPDIR");
    const char *candidates[] = {tmpdir && *tmpdir == '/' ? tmpdir : NULL, "/tmp"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (!candidates[i])
            continue;
        if (fmt_path(out, size, "%s/.mount_%sXXXXXX", candidates[i], prefix) && mkdtemp(out))
            return 0;
    }
    return -1;
}

/* The descriptors open now, as a bitmap of the first FD_TRACKED numbers. */
#define FD_TRACKED 1024
static void open_fds(unsigned char open[FD_TRACKED / 8])
{
    memset(open, 0, FD_TRACKED / 8);
    for (int fd = 0; fd < FD_TRACKED; fd++)
        if (fcntl(fd, F_GETFD) != -1)
            open[fd / 8] |= (unsigned char)(1u << (fd % 8));
}

/* Marks close-on-exec every descriptor opened since `before`: libfuse keeps the FUSE device and, with
 * auto_unmount, its socket to fusermount3 open without it. Left to the application, that socket would keep
 * fusermount3 waiting as long as any of its descendants lives, instead of unmounting when the runtime dies. */
static void keep_new_fds_from_children(const unsigned char before[FD_TRACKED / 8])
{
    for (int fd = 0; fd < FD_TRACKED; fd++) {
        int flags = fcntl(fd, F_GETFD);
        if (flags != -1 && !(before[fd / 8] & (1u << (fd % 8))))
            fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
}

static void *serve(void *arg)
{
    struct fuse_mount *m = arg;
    fuse_session_loop(m->se);
    return NULL;
}

/* Mounts with libfuse, collecting what it and fusermount3 print into mount_messages. */
static int mount_quietly(struct fuse_session *se, const char *mountpoint)
{
    mount_messages[0] = '\0';
    fuse_set_log_func(capture_fuse_log);
    int saved_stderr = dup(STDERR_FILENO);
    int capture = memfd_create("fuse-mount-messages", MFD_CLOEXEC);
    if (saved_stderr >= 0 && capture >= 0)
        dup2(capture, STDERR_FILENO);
    int res = fuse_session_mount(se, mountpoint);
    if (saved_stderr >= 0 && capture >= 0) {
        dup2(saved_stderr, STDERR_FILENO);
        char text[512];
        ssize_t n = pread(capture, text, sizeof text - 1, 0);
        if (n > 0) {
            text[n] = '\0';
            size_t used = strlen(mount_messages);
            snprintf(mount_messages + used, sizeof mount_messages - used, "%s", text);
        }
    }
    if (saved_stderr >= 0)
        close(saved_stderr);
    if (capture >= 0)
        close(capture);
    fuse_set_log_func(NULL);
    return res;
}

/* The captured libfuse lines as one phrase. */
static const char *mount_messages_phrase(void)
{
    for (char *p = mount_messages; *p; p++)
        if (*p == '\n')
            *p = *(p + 1) ? ';' : '\0';
    return mount_messages[0] ? mount_messages : "the mount was refused";
}

int fuse_mount_image(struct fuse_mount *m, const struct image *img, struct failure *why)
{
    memset(m, 0, sizeof *m);
    if (sqfs_open_payload(&m->ll.fs, img, why) != 0)
        return -1;
    if (sqfs_find_apprun(&m->ll.fs, why) != 0) {
        sqfs_destroy(&m->ll.fs);
        return -1;
    }
    if (sqfs_ll_init(&m->ll) != SQFS_OK) {
        sqfs_destroy(&m->ll.fs);
        fail_set(why, RT_EXIT_OSERR, "cannot set up the file system (out of memory?)");
        return -1;
    }
    if (make_mountpoint(m->mountpoint, sizeof m->mountpoint, img->name) != 0) {
        fail_set(why, RT_EXIT_UNAVAILABLE, "no place for a mount point (%s)", strerror(errno));
        sqfs_ll_destroy(&m->ll);
        return -1;
    }

    char fsname[128], options[256];
    option_safe(fsname, sizeof fsname, img->name);
    /* auto_unmount: fusermount3 removes the mount even if this process is killed outright. */
    snprintf(options, sizeof options, "ro,nosuid,nodev,fsname=%s,subtype=appimage%s", fsname,
             find_fusermount() ? ",auto_unmount" : "");
    char *argv[] = {"appimage-runtime", "-o", options, NULL};
    struct fuse_args args = FUSE_ARGS_INIT(3, argv);
    m->se = fuse_session_new(&args, &squashfs_ops, sizeof squashfs_ops, &m->ll);
    fuse_opt_free_args(&args);
    if (!m->se) {
        fail_set(why, RT_EXIT_OSERR, "cannot start a FUSE session");
        goto undo_mountpoint;
    }
    unsigned char fds_before[FD_TRACKED / 8];
    open_fds(fds_before);
    if (mount_quietly(m->se, m->mountpoint) != 0) {
        fail_set(why, RT_EXIT_UNAVAILABLE, "mounting through FUSE failed: %s", mount_messages_phrase());
        goto undo_session;
    }
    keep_new_fds_from_children(fds_before);
    int err = pthread_create(&m->loop, NULL, serve, m);
    if (err != 0) {
        fail_set(why, RT_EXIT_OSERR, "cannot start serving the file system: %s", strerror(err));
        fuse_session_unmount(m->se);
        goto undo_session;
    }
    return 0;

undo_session:
    fuse_session_destroy(m->se);
    m->se = NULL;
undo_mountpoint:
    rmdir(m->mountpoint);
    sqfs_ll_destroy(&m->ll);
    return -1;
}

void fuse_unmount_image(struct fuse_mount *m)
{
    if (!m->se)
        return;
    fuse_session_exit(m->se);
    fuse_session_unmount(m->se); /* lazy: the mount point leaves the namespace at once */
    /* The loop ends when the kernel drops the connection, which it does once nothing holds a file open.
     * A process the application left behind may still hold one: do not wait for it forever. */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 2;
    if (pthread_timedjoin_np(m->loop, NULL, &deadline) == 0) {
        fuse_session_destroy(m->se);
        sqfs_ll_destroy(&m->ll);
    }
    m->se = NULL;
    rmdir(m->mountpoint);
}
