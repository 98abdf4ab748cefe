/* Extract-and-run: the image extracted once into a per-user cache keyed by its SHA-256, reused later.
 *
 * Layout of a cache root (first $XDG_CACHE_HOME/idea-appimage or ~/.cache/idea-appimage, then
 * $TMPDIR/idea-appimage-<uid>):
 *   <sha256>/             a complete extraction; it only ever appears by an atomic rename
 *   <sha256>.lock         held shared by every running start, exclusively by a pruner
 *   <sha256>.extracting   held exclusively while one start extracts
 *   .tmp-<sha256>-XXXXXX/ an extraction in progress (or left by a crash; removed, never used)
 *   by-file/<dev>-<ino>-<size>-<mtime>-<ctime> -> <sha256>   so unchanged files are not hashed again
 */
#ifndef RT_CACHE_H
#define RT_CACHE_H

#include <limits.h>
#include <stdbool.h>

#include "image.h"

#define CACHE_DIR_NAME "idea-appimage"
#define CACHE_UNUSED_DAYS 30

struct cache_use {
    char root[PATH_MAX];
    char appdir[PATH_MAX]; /* the extracted tree the application runs from */
    char hex[65];
    int use_lock;          /* shared lock on <sha256>.lock, held while the application runs */
    bool extracted_now;
};

/* Finds or makes the extraction of img. reason says why extraction is used (for the notice and
 * for the failure message); fuse_failed tells whether FUSE was tried and did not work.
 * 0, or -1 with f set (RT_EXIT_UNAVAILABLE when no place works, RT_EXIT_DAMAGED for a bad image). */
int cache_prepare(struct cache_use *use, const struct image *img, const char *reason, bool fuse_failed,
                  struct failure *f);

/* Removes other extractions unused for CACHE_UNUSED_DAYS days and leftovers of interrupted ones.
 * Entries some running start holds are kept. */
void cache_prune(const struct cache_use *use);

void cache_release(struct cache_use *use);

#endif
