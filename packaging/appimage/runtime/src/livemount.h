/* Starting from the mount of an application that already runs from the same image, instead of mounting again.
 *
 * The application names the AppDir it runs from in LIVE_APPDIR_ENV for the processes it starts (IdeA does so
 * at start: idea/infrastructure/installation.py). A later start of the same image whose first argument
 * is one of the subcommands that end with the application (RT_LIVE_MOUNT_COMMANDS: IdeA's hook relay, MCP
 * bridge and sandbox wrapper, which agent CLIs start on every turn, often inside a Landlock sandbox where
 * FUSE cannot mount) runs AppRun straight from that mount, without mounting or extracting anything — after
 * checking, from the kernel's own mount table, that the folder is a live mount made by this user of an image
 * with the same identity (image_identity). Anything else (the variable is stale, names another image, a
 * plain folder, someone else's mount) falls back to mounting as usual. */
#ifndef RT_LIVEMOUNT_H
#define RT_LIVEMOUNT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "image.h"

#define LIVE_APPDIR_ENV "IDEA_LIVE_APPDIR"
/* The FUSE subtype of the runtime's mounts: their type in the mount table is "fuse.appimage". */
#define LIVE_MOUNT_SUBTYPE "appimage"
#define LIVE_MOUNT_TYPE "fuse." LIVE_MOUNT_SUBTYPE

#ifndef RT_LIVE_MOUNT_COMMANDS
#define RT_LIVE_MOUNT_COMMANDS "hook mcp-server sandbox-exec"
#endif

/* One line of /proc/self/mountinfo, escapes (\040 for a space...) undone. */
struct mount_entry {
    unsigned major, minor;
    char root[PATH_MAX];
    char mountpoint[PATH_MAX];
    char options[256];       /* per-mount: ro,nosuid,nodev,relatime */
    char fstype[64];         /* fuse.appimage */
    char source[256];        /* the FUSE fsname */
    char super_options[256]; /* ro,user_id=1000,group_id=1000 */
};

/* Parses one mountinfo line (without its newline). 0, or -1 when it is malformed. */
int mountinfo_parse_line(const char *line, struct mount_entry *e);

/* The last entry of a mountinfo text whose mount point is mountpoint: the mount visible there.
 * 0 when found, -1 when nothing is mounted there. */
int mountinfo_find(const char *text, const char *mountpoint, struct mount_entry *e);

/* The fsname the runtime's mounts carry: the image's file name (letters safe in a mount option) followed by
 * '@' and its identity, so that the mount table tells which image a mount serves. */
void live_mount_fsname(char *out, size_t size, const char *image_name, const char *identity);

/* Whether entry is a read-only mount of this runtime made by user uid, serving the image with this
 * identity. When not, why holds a phrase. */
bool mount_entry_serves(const struct mount_entry *e, uid_t uid, const char *identity, char *why, size_t size);

/* Whether the application's first argument is one of RT_LIVE_MOUNT_COMMANDS. */
bool live_mount_command(const char *arg);

/* Checks that path is a live mount of img (see above) holding an AppRun, and fills mountpoint with the mount
 * point it resolves to. 0, or -1 with why filled. */
int live_mount_verify(const struct image *img, const char *path, char mountpoint[PATH_MAX], char *why, size_t size);

#endif
