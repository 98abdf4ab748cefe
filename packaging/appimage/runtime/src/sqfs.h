/* squashfuse's library headers. Its config.h sets feature macros and FUSE_USE_VERSION, so source files
 * include this header before any other. */
#ifndef RT_SQFS_H
#define RT_SQFS_H

#include <squashfuse.h>
#include <ll.h>

#include "util.h"

struct image;

/* Opens the image's squashfs with squashfuse (sqfs_init on the image's descriptor and offset).
 * 0, or -1 with f set (the image is damaged). */
int sqfs_open_payload(sqfs *fs, const struct image *img, struct failure *f);

/* Reads the root folder and finds AppRun in it, so that a damaged image or one without AppRun is told
 * apart before anything starts. 0, or -1 with f set (RT_EXIT_DAMAGED or RT_EXIT_NOTFOUND). */
int sqfs_find_apprun(sqfs *fs, struct failure *f);

#endif
