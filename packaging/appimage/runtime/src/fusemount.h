/* Serving the image's squashfs read-only through FUSE, in-process, on a private temporary mount point. */
#ifndef RT_FUSEMOUNT_H
#define RT_FUSEMOUNT_H

#include "sqfs.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>

#include "image.h"

struct fuse_mount {
    sqfs_ll ll;                 /* squashfuse's low-level state; its fs reads the image descriptor */
    struct fuse_session *se;
    pthread_t loop;             /* runs fuse_session_loop; every signal is blocked there */
    char mountpoint[PATH_MAX];
};

/* Whether FUSE can be tried here; when not, why (a phrase for the user). */
bool fuse_usable(char *why, size_t size);

/* Mounts the image and starts serving it. The caller has blocked the signals it handles itself.
 * 0, or -1 with why set: FUSE does not work here (RT_EXIT_UNAVAILABLE) or the image is damaged. */
int fuse_mount_image(struct fuse_mount *m, const struct image *img, struct failure *why);

/* Unmounts, stops serving and removes the mount point. */
void fuse_unmount_image(struct fuse_mount *m);

#endif
