#include "fusemount.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "livemount.h"
#include "serve.h"

/* libfuse logs through this while mounting, so its lines join our message instead of the terminal. */
static char mount_messages[1024];

static void capture_fuse_log(enum fuse_log_level level, const char *fmt, va_list ap)
{
    (void)level;
    size_t used = strlen(mount_messages);
    if (used + 1 < sizeof mount_messages)
        vsnprintf(mount_messages + used, sizeof mount_messages - used, fmt, ap);
}

/* Where libfuse looks for fusermount3: its install directory, then PATH. Its path goes to `found`. */
static bool locate_fusermount(char found[PATH_MAX])
{
    struct stat st;
    if (access("/usr/bin/fusermount3", X_OK) == 0 && stat("/usr/bin/fusermount3", &st) == 0 && S_ISREG(st.st_mode))
        return fmt_path(found, PATH_MAX, "/usr/bin/fusermount3");
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char dir[PATH_MAX];
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && len < sizeof dir) {
            memcpy(dir, path, len);
            dir[len] = '\0';
            if (fmt_path(found, PATH_MAX, "%s/fusermount3", dir) && stat(found, &st) == 0 &&
                S_ISREG(st.st_mode) && access(found, X_OK) == 0)
                return true;
        }
        path += len;
        if (*path == ':')
            path++;
    }
    return false;
}

static bool find_fusermount(void)
{
    char found[PATH_MAX];
    return locate_fusermount(found);
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

/* The backstop of auto_unmount. When the runtime is killed outright, fusermount3 removes the mount only if
 * opening the mount point then fails with ENOTCONN. The dying runtime releases the fusermount3 socket and
 * /dev/fuse one after the other: when fusermount3's check reaches FUSE between the two, the request is
 * aborted with ECONNABORTED instead, fusermount3 leaves the mount in place and exits (seen: 2 kills in 300
 * on a loaded machine). This process, forked before the application, holds only the reading end of a pipe
 * whose other end dies with the runtime; then it detaches whatever is still mounted there and removes the
 * empty mount point. After a normal exit the runtime has done both already, and it finds nothing to do. */
static void guard_mountpoint(int watch, const char *mountpoint)
{
    for (int fd = 0; fd < FD_TRACKED; fd++)
        if (fd != watch)
            close(fd); /* above all /dev/fuse: holding it would keep the dead connection alive */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    setsid(); /* a Ctrl+C or a hang-up of the application's terminal is not for it */
    if (chdir("/") != 0)
        _exit(1);
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    char byte;
    for (;;) {
        ssize_t n = read(watch, &byte, 1);
        if (n == 0)
            break; /* the runtime has ended */
        if (n < 0 && errno != EINTR)
            _exit(1); /* cannot watch: auto_unmount alone */
    }
    if (geteuid() == 0) {
        umount2(mountpoint, MNT_DETACH | UMOUNT_NOFOLLOW); /* EINVAL when nothing is mounted there any more */
    } else {
        char fusermount[PATH_MAX];
        pid_t pid = locate_fusermount(fusermount) ? fork() : -1;
        if (pid == 0) {
            execl(fusermount, "fusermount3", "-u", "-z", "-q", "--", mountpoint, (char *)NULL);
            _exit(127);
        }
        if (pid > 0)
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
    }
    rmdir(mountpoint);
    _exit(0);
}

/* Forks the guard; the runtime keeps the pipe's writing end, closed on exec, for the rest of its life. */
static void start_mountpoint_guard(const char *mountpoint)
{
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0)
        return; /* no backstop: auto_unmount alone */
    pid_t pid = fork();
    if (pid == 0)
        guard_mountpoint(ends[0], mountpoint);
    close(ends[0]);
    if (pid < 0)
        close(ends[1]);
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
    serve_tune(&m->ll.fs);
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

    /* The mount table then tells which image a mount serves (a later start may run from it: livemount.h). */
    char fsname[192], options[320], identity[IMAGE_IDENTITY_LEN + 1];
    if (image_identity(img, identity, why) != 0)
        goto undo_mountpoint;
    live_mount_fsname(fsname, sizeof fsname, img->name, identity);
    /* auto_unmount: fusermount3 removes the mount even if this process is killed outright. */
    snprintf(options, sizeof options, "ro,nosuid,nodev,fsname=%s,subtype=" LIVE_MOUNT_SUBTYPE "%s", fsname,
             find_fusermount() ? ",auto_unmount" : "");
    char *argv[] = {"appimage-runtime", "-o", options, NULL};
    struct fuse_args args = FUSE_ARGS_INIT(3, argv);
    m->se = fuse_session_new(&args, &serve_ops, sizeof serve_ops, &m->ll);
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
    start_mountpoint_guard(m->mountpoint); /* while the runtime has one thread: forking is simple */
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
