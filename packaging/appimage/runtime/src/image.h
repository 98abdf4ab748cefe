/* The AppImage file: where it is, where its squashfs starts, whether that squashfs is whole. */
#ifndef RT_IMAGE_H
#define RT_IMAGE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "util.h"

#define SQUASHFS_SUPERBLOCK_SIZE 96

struct image {
    int fd;                /* read-only descriptor of the image (close-on-exec) */
    char path[PATH_MAX];   /* absolute, symlinks resolved: what APPIMAGE is set to */
    const char *name;      /* the file name inside path, for messages */
    struct stat st;
    uint64_t offset;       /* where the squashfs starts: the end of the runtime's ELF */
    uint64_t fs_bytes;     /* the squashfs's own size (bytes_used of its superblock) */
};

/* The payload offset of an ELF file from its header bytes: the end of the section header table
 * (e_shoff + e_shnum * e_shentsize), for 32- and 64-bit, either byte order.
 * Returns 0, or -1 with *problem set to a sentence. */
int elf_payload_offset(const unsigned char *hdr, size_t len, uint64_t *offset, const char **problem);

/* Whether the header carries the AppImage type-2 magic: 'A' 'I' 0x02 at offset 8. */
bool appimage_type2_magic(const unsigned char *hdr, size_t len);

/* Checks a squashfs superblock; available is the number of bytes the file holds from the superblock
 * on. Returns 0 and sets *bytes_used, or -1 (corrupt) / -2 (truncated) with problem filled. */
int squashfs_superblock_check(const unsigned char *sb, size_t len, uint64_t available, uint64_t *bytes_used,
                              char *problem, size_t problem_size);

/* Opens the image this runtime belongs to ($TARGET_APPIMAGE if set, else the running executable)
 * and finds the payload offset. 0, or -1 with f set. */
int image_open(struct image *img, const char *argv0, struct failure *f);

/* Checks that a whole squashfs follows the runtime. 0, or -1 with f set. */
int image_check_payload(struct image *img, struct failure *f);

/* The identity of a squashfs, as IMAGE_IDENTITY_LEN hex digits: the first 128 bits of the SHA-256 of its
 * superblock followed by its metadata (everything from the inode table to its end: every inode with its
 * block sizes, the directories, the fragment, export and id tables). Two images share it only if they hold
 * the same files; it costs a few kilobytes of reading, not a hash of the whole file. */
#define IMAGE_IDENTITY_LEN 32
void squashfs_identity(const unsigned char *sb, const unsigned char *metadata, size_t metadata_len,
                       char out[IMAGE_IDENTITY_LEN + 1]);

/* squashfs_identity of the image's payload (after image_check_payload). 0, or -1 with f set. */
int image_identity(const struct image *img, char out[IMAGE_IDENTITY_LEN + 1], struct failure *f);

#endif
