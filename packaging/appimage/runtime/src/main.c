/* IdeA's AppImage type-2 runtime: mounts the SquashFS appended to this ELF file through FUSE (or runs it
 * from an extraction cache where FUSE is missing) and starts its AppRun. README.md describes the behaviour. */
#include "fusemount.h" /* squashfuse's headers first (sqfs.h) */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "cache.h"
#include "extract.h"
#include "image.h"
#include "launch.h"
#include "livemount.h"

#ifndef RT_VERSION
#define RT_VERSION "unknown"
#endif

static void print_help(const char *name)
{
    printf("Usage: %s [ARGUMENTS...]          start the application with these arguments\n"
           "       %s --appimage-OPTION       (options are read only as the first argument)\n"
           "\n"
           "  --appimage-extract [PATTERN]   extract the contents into ./squashfs-root, only the paths\n"
           "                                 matching the glob PATTERN when one is given\n"
           "  --appimage-extract-and-run [ARGUMENTS...]\n"
           "                                 start without FUSE, from the extraction cache\n"
           "  --appimage-mount               mount the contents, print the mount point, keep it mounted\n"
           "                                 until Ctrl+C (SIGINT) or SIGTERM\n"
           "  --appimage-offset              print the byte offset of the SquashFS inside the file\n"
           "  --appimage-version             print this runtime's version\n"
           "  --appimage-help                print this help\n"
           "\n"
           "Environment:\n"
           "  APPIMAGE_EXTRACT_AND_RUN=1     same as --appimage-extract-and-run\n"
           "  TARGET_APPIMAGE=FILE           work on FILE instead of this file\n"
           "  XDG_CACHE_HOME, TMPDIR         where extractions are cached: $XDG_CACHE_HOME/%s (else\n"
           "                                 ~/.cache/%s), then $TMPDIR/%s-UID\n"
           "  " LIVE_APPDIR_ENV "=DIR           the mount of a copy already running (it names it for\n"
           "                                 its children): " RT_LIVE_MOUNT_COMMANDS "\n"
           "                                 start from it instead of mounting again\n"
           "The application gets APPIMAGE, APPDIR, ARGV0 and OWD in its environment.\n",
           name, name, CACHE_DIR_NAME, CACHE_DIR_NAME, CACHE_DIR_NAME);
}

static void print_version(void)
{
    printf("IdeA AppImage runtime %s (type 2; squashfuse %s, libfuse %s, zstd %s)\n", RT_VERSION, PACKAGE_VERSION,
           fuse_pkgversion(), ZSTD_versionString());
}

static void __attribute__((noreturn)) die(const struct failure *f)
{
    msg("%s", f->msg);
    exit(f->code ? f->code : RT_EXIT_OSERR);
}

static bool extract_and_run_requested(void)
{
    const char *v = getenv("APPIMAGE_EXTRACT_AND_RUN");
    return v && *v && strcmp(v, "0") != 0;
}

/* --appimage-extract [PATTERN]: into ./squashfs-root, listing what it writes. */
static int extract_here(struct image *img, const char *pattern)
{
    struct failure f = {0};
    sqfs fs;
    if (image_check_payload(img, &f) != 0 || sqfs_open_payload(&fs, img, &f) != 0)
        die(&f);
    if (mkdir("squashfs-root", 0755) != 0 && errno != EEXIST) {
        fail_set(&f, RT_EXIT_CANTCREAT, "cannot create squashfs-root here: %s", strerror(errno));
        die(&f);
    }
    struct extract_opts opts = {.pattern = pattern, .list_prefix = "squashfs-root/"};
    if (extract_tree(&fs, "squashfs-root", &opts, &f) != 0)
        die(&f);
    sqfs_destroy(&fs);
    return 0;
}

/* --appimage-mount: mounted until asked to stop. */
static int mount_and_wait(struct image *img)
{
    struct failure f = {0};
    char why[256];
    if (image_check_payload(img, &f) != 0)
        die(&f);
    if (!fuse_usable(why, sizeof why)) {
        fail_set(&f, RT_EXIT_UNAVAILABLE, "cannot mount: FUSE is not available (%s)", why);
        die(&f);
    }
    signals_take_over();
    struct fuse_mount m;
    if (fuse_mount_image(&m, img, &f) != 0)
        die(&f);
    printf("%s\n", m.mountpoint);
    fflush(stdout);
    wait_for_stop_signal();
    fuse_unmount_image(&m);
    return 0;
}

/* For the application's subcommands that end with it: AppRun from the mount of the copy already running
 * (LIVE_APPDIR_ENV, which that copy names for its children), when that mount checks out. Returns when it does
 * not (the start then goes on as usual). */
static void run_from_live_mount(struct image *img, const char *argv0, char **args)
{
    const char *live = getenv(LIVE_APPDIR_ENV);
    if (!live || !*live || !args[0] || !live_mount_command(args[0]))
        return;
    char mountpoint[PATH_MAX], why[1024];
    if (live_mount_verify(img, live, mountpoint, why, sizeof why) != 0)
        return;
    struct launch l = {.image_path = img->path, .argv0 = argv0, .args = args, .appdir = mountpoint};
    struct failure f = {0};
    launch_exec(&l, &f); /* returns only if AppRun could not be started from there: mount as usual */
}

static int run(struct image *img, const char *argv0, char **args, bool extract_requested)
{
    struct failure f = {0};
    if (image_check_payload(img, &f) != 0)
        die(&f);
    if (!extract_requested)
        run_from_live_mount(img, argv0, args);
    char reason[512];
    bool fuse_failed = false;
    struct fuse_mount m;
    struct launch l = {.image_path = img->path, .argv0 = argv0, .args = args};
    bool mounted = false;

    if (extract_requested) {
        snprintf(reason, sizeof reason, "extract-and-run was asked for");
    } else {
        char why[256];
        if (!fuse_usable(why, sizeof why)) {
            snprintf(reason, sizeof reason, "FUSE is not available (%s)", why);
            fuse_failed = true;
        } else {
            signals_take_over(); /* before the serving thread starts, so it inherits the block */
            if (fuse_mount_image(&m, img, &f) == 0) {
                mounted = true;
            } else {
                if (f.code != RT_EXIT_UNAVAILABLE)
                    die(&f);
                signals_give_back(); /* Ctrl+C may stop a long first extraction */
                fmt_path(reason, sizeof reason, "FUSE is not available (%s)", f.msg);
                fuse_failed = true;
            }
        }
    }

    struct cache_use cache = {.use_lock = -1};
    if (mounted) {
        l.appdir = m.mountpoint;
        l.die_with_runtime = true;
    } else {
        if (cache_prepare(&cache, img, reason, fuse_failed, &f) != 0)
            die(&f);
        l.appdir = cache.appdir;
        signals_take_over();
    }

    pid_t child;
    if (launch_spawn(&l, &child, &f) != 0) {
        if (mounted)
            fuse_unmount_image(&m);
        else if (f.code == RT_EXIT_NOTFOUND || f.code == RT_EXIT_NOEXEC)
            fail_append(&f, " (in its extracted copy %s, which was changed after extraction: remove that folder and "
                            "start again)", cache.appdir);
        die(&f);
    }
    if (cache.extracted_now)
        cache_prune(&cache); /* while the application starts; signals wait in the queue meanwhile */
    int status = launch_wait(child);
    if (mounted)
        fuse_unmount_image(&m);
    cache_release(&cache);
    exit_like(status);
}

int main(int argc, char **argv)
{
    struct image img;
    struct failure f = {0};
    const char *argv0 = argc > 0 ? argv[0] : "";
    if (image_open(&img, argv0, &f) != 0)
        die(&f);
    char *no_args[] = {NULL};
    char **args = argc > 1 ? argv + 1 : no_args;

    const char *option = argc > 1 ? argv[1] : "";
    if (strncmp(option, "--appimage-", 11) != 0)
        return run(&img, argv0, args, extract_and_run_requested());
    if (strcmp(option, "--appimage-help") == 0) {
        print_help(img.name);
        return 0;
    }
    if (strcmp(option, "--appimage-version") == 0) {
        print_version();
        return 0;
    }
    if (strcmp(option, "--appimage-offset") == 0) {
        printf("%llu\n", (unsigned long long)img.offset);
        return 0;
    }
    if (strcmp(option, "--appimage-extract") == 0) {
        if (argc > 3) {
            msg("--appimage-extract takes at most one PATTERN (quote it to keep the shell from expanding it)");
            return RT_EXIT_USAGE;
        }
        return extract_here(&img, argc == 3 ? argv[2] : NULL);
    }
    if (strcmp(option, "--appimage-mount") == 0)
        return mount_and_wait(&img);
    if (strcmp(option, "--appimage-extract-and-run") == 0)
        return run(&img, argv0, argv + 2, true);
    msg("unknown option %s; %s --appimage-help lists the options", option, img.name);
    return RT_EXIT_USAGE;
}
