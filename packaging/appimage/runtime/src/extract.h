/* Copying the image's squashfs out to a directory: --appimage-extract and the extract-and-run cache. */
#ifndef RT_EXTRACT_H
#define RT_EXTRACT_H

#include "sqfs.h"

#include <stdbool.h>

struct extract_opts {
    const char *pattern;     /* glob (fnmatch) on the path inside the image; NULL extracts everything */
    const char *list_prefix; /* when set, each extracted path is printed on stdout after this prefix */
};

/* Extracts into dest, an existing directory; existing files are replaced, never followed through symlinks.
 * Modes (without set-id bits) and modification times are kept. 0, or -1 with f set: RT_EXIT_DAMAGED when the
 * image cannot be read, RT_EXIT_CANTCREAT when dest cannot be written (f->msg says which file and why). */
int extract_tree(sqfs *fs, const char *dest, const struct extract_opts *opts, struct failure *f);

#endif
