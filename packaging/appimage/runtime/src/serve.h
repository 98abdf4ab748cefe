/* The FUSE operations that serve the image: squashfuse's low-level ones, changed where a start gets faster.
 *
 * - No OPEN and RELEASE round trips for files: on a kernel that offers it (FUSE_CAP_NO_OPEN_SUPPORT), open
 *   answers ENOSYS once, after which the kernel opens files by itself and keeps their pages cached across
 *   opens; read then finds the inode by its number (a small cache of decoded inodes). A Python application
 *   opens its module archive once per import: about a thousand round trips at IdeA's start.
 * - Larger block caches than squashfuse's one data block and three fragment blocks: the kernel's reads of a
 *   library (page faults, read-ahead) rarely end on a block boundary and move between files, so with one
 *   cached block the same blocks were decompressed about twice over (169 MB for 76 MB read at IdeA's start).
 */
#ifndef RT_SERVE_H
#define RT_SERVE_H

#include "sqfs.h"

/* Block cache sizes, in bytes of decompressed data (whole blocks, at least SERVE_MIN_BLOCKS each). */
#define SERVE_DATA_CACHE_BYTES (8u << 20)
#define SERVE_FRAGMENT_CACHE_BYTES (2u << 20)
#define SERVE_MIN_BLOCKS 4

extern const struct fuse_lowlevel_ops serve_ops;

/* Resizes the block caches of a squashfs opened with sqfs_open_payload (before serving starts). */
void serve_tune(sqfs *fs);

#endif
