#include "image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"

#define SQUASHFS_MAGIC 0x73717368u /* "hsqs" read little-endian */
#define SQUASHFS_ABSENT UINT64_MAX  /* an optional table that is not there */

static uint64_t read_uint(const unsigned char *p, int width, bool big_endian)
{
    uint64_t v = 0;
    for (int i = 0; i < width; i++) {
        int shift = big_endian ? 8 * (width - 1 - i) : 8 * i;
        v |= (uint64_t)p[i] << shift;
    }
    return v;
}

int elf_payload_offset(const unsigned char *hdr, size_t len, uint64_t *offset, const char **problem)
{
    if (len < 16 || memcmp(hdr, "\177ELF", 4) != 0) {
        *problem = "it does not start with an ELF header";
        return -1;
    }
    bool big = hdr[5] == 2; /* EI_DATA: 1 little-endian, 2 big-endian */
    if (hdr[5] != 1 && hdr[5] != 2) {
        *problem = "its ELF header has an unknown byte order";
        return -1;
    }
    uint64_t shoff, shentsize, shnum;
    if (hdr[4] == 2) { /* ELFCLASS64 */
        if (len < 64) {
            *problem = "its ELF header is cut short";
            return -1;
        }
        shoff = read_uint(hdr + 0x28, 8, big);
        shentsize = read_uint(hdr + 0x3a, 2, big);
        shnum = read_uint(hdr + 0x3c, 2, big);
    } else if (hdr[4] == 1) { /* ELFCLASS32 */
        if (len < 52) {
            *problem = "its ELF header is cut short";
            return -1;
        }
        shoff = read_uint(hdr + 0x20, 4, big);
        shentsize = read_uint(hdr + 0x2e, 2, big);
        shnum = read_uint(hdr + 0x30, 2, big);
    } else {
        *problem = "its ELF header has an unknown class";
        return -1;
    }
    if (shoff == 0 || shnum == 0 || shentsize == 0) {
        *problem = "its ELF header has no section header table";
        return -1;
    }
    if (shoff > UINT64_MAX - shnum * shentsize) {
        *problem = "its ELF section header table lies past any possible file end";
        return -1;
    }
    *offset = shoff + shnum * shentsize;
    return 0;
}

bool appimage_type2_magic(const unsigned char *hdr, size_t len)
{
    return len >= 11 && hdr[8] == 'A' && hdr[9] == 'I' && hdr[10] == 0x02;
}

int squashfs_superblock_check(const unsigned char *sb, size_t len, uint64_t available, uint64_t *bytes_used,
                              char *problem, size_t problem_size)
{
    if (available < SQUASHFS_SUPERBLOCK_SIZE || len < SQUASHFS_SUPERBLOCK_SIZE) {
        snprintf(problem, problem_size, "only %llu bytes follow the runtime, too few for a file system",
                 (unsigned long long)available);
        return -2;
    }
    if (read_uint(sb, 4, false) != SQUASHFS_MAGIC) {
        snprintf(problem, problem_size,
                 "no SquashFS file system where the runtime ends (found bytes %02x %02x %02x %02x)", sb[0],
                 sb[1], sb[2], sb[3]);
        return -1;
    }
    uint64_t block_size = read_uint(sb + 12, 4, false);
    uint64_t compression = read_uint(sb + 20, 2, false);
    uint64_t block_log = read_uint(sb + 22, 2, false);
    uint64_t major = read_uint(sb + 28, 2, false);
    uint64_t used = read_uint(sb + 40, 8, false);
    if (major != 4) {
        snprintf(problem, problem_size, "its SquashFS has version %llu, not 4", (unsigned long long)major);
        return -1;
    }
    if (block_log < 12 || block_log > 20 || block_size != (1ull << block_log) || compression < 1 ||
        compression > 6 || used < SQUASHFS_SUPERBLOCK_SIZE) {
        snprintf(problem, problem_size, "its SquashFS superblock is corrupt");
        return -1;
    }
    /* Every table must lie inside the file system; the optional ones may be absent. */
    static const struct {
        int at;
        bool optional;
    } tables[] = {{48, false}, {56, true}, {64, false}, {72, false}, {80, true}, {88, true}};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        uint64_t start = read_uint(sb + tables[i].at, 8, false);
        if (tables[i].optional && start == SQUASHFS_ABSENT)
            continue;
        if (start >= used) {
            snprintf(problem, problem_size, "its SquashFS superblock is corrupt (a table lies past its end)");
            return -1;
        }
    }
    if (used > available) {
        snprintf(problem, problem_size,
                 "the file is incomplete: its file system needs %llu bytes after the runtime, but only %llu are "
                 "there (an interrupted download or copy?)",
                 (unsigned long long)used, (unsigned long long)available);
        return -2;
    }
    *bytes_used = used;
    return 0;
}

/* The absolute path of the running executable, symlinks resolved. */
static int own_path(char *out, size_t size, const char *argv0)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n > 0) {
        out[n] = '\0';
        return 0;
    }
    /* Without /proc (a bare chroot): argv[0] when it names a file. */
    char resolved[PATH_MAX];
    if (argv0 && strchr(argv0, '/') && realpath(argv0, resolved)) {
        snprintf(out, size, "%s", resolved);
        return 0;
    }
    return -1;
}

int image_open(struct image *img, const char *argv0, struct failure *f)
{
    memset(img, 0, sizeof *img);
    img->fd = -1;
    const char *target = getenv("TARGET_APPIMAGE");
    if (target && *target) {
        if (!realpath(target, img->path)) {
            fail_set(f, RT_EXIT_IOERR, "TARGET_APPIMAGE=%s: %s", target, strerror(errno));
            return -1;
        }
    } else if (own_path(img->path, sizeof img->path, argv0) != 0) {
        fail_set(f, RT_EXIT_IOERR, "cannot find the AppImage file itself (is /proc mounted?)");
        return -1;
    }
    const char *slash = strrchr(img->path, '/');
    img->name = slash ? slash + 1 : img->path;
    msg_set_prefix(img->name);

    img->fd = open(target && *target ? img->path : "/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (img->fd < 0)
        img->fd = open(img->path, O_RDONLY | O_CLOEXEC);
    if (img->fd < 0 || fstat(img->fd, &img->st) != 0) {
        fail_set(f, RT_EXIT_IOERR, "cannot read %s: %s", img->path, strerror(errno));
        return -1;
    }
    unsigned char hdr[64];
    ssize_t n = pread(img->fd, hdr, sizeof hdr, 0);
    if (n < 0) {
        fail_set(f, RT_EXIT_IOERR, "cannot read %s: %s", img->path, strerror(errno));
        return -1;
    }
    const char *problem = NULL;
    if (elf_payload_offset(hdr, (size_t)n, &img->offset, &problem) != 0) {
        fail_set(f, RT_EXIT_DAMAGED, "%s is not an AppImage: %s", img->path, problem);
        return -1;
    }
    return 0;
}

int image_check_payload(struct image *img, struct failure *f)
{
    uint64_t size = (uint64_t)img->st.st_size;
    if (img->offset >= size) {
        fail_set(f, RT_EXIT_DAMAGED,
                 "this AppImage holds no application: nothing follows its runtime (%llu bytes); the file is "
                 "incomplete or is the runtime alone. Download it again.",
                 (unsigned long long)img->offset);
        return -1;
    }
    unsigned char sb[SQUASHFS_SUPERBLOCK_SIZE];
    ssize_t n = pread(img->fd, sb, sizeof sb, (off_t)img->offset);
    if (n < 0) {
        fail_set(f, RT_EXIT_IOERR, "cannot read %s: %s", img->path, strerror(errno));
        return -1;
    }
    char problem[512];
    if (squashfs_superblock_check(sb, (size_t)n, size - img->offset, &img->fs_bytes, problem, sizeof problem) != 0) {
        fail_set(f, RT_EXIT_DAMAGED, "this AppImage is damaged: %s. Download it again.", problem);
        return -1;
    }
    return 0;
}

void squashfs_identity(const unsigned char *sb, const unsigned char *metadata, size_t metadata_len,
                       char out[IMAGE_IDENTITY_LEN + 1])
{
    struct sha256 ctx;
    unsigned char digest[32];
    char hex[65];
    sha256_init(&ctx);
    sha256_update(&ctx, sb, SQUASHFS_SUPERBLOCK_SIZE);
    sha256_update(&ctx, metadata, metadata_len);
    sha256_final(&ctx, digest);
    sha256_hex(digest, hex);
    memcpy(out, hex, IMAGE_IDENTITY_LEN);
    out[IMAGE_IDENTITY_LEN] = '\0';
}

/* Metadata larger than this is hashed only in its first part (no real image comes near it). */
#define IDENTITY_METADATA_MAX (64u << 20)

int image_identity(const struct image *img, char out[IMAGE_IDENTITY_LEN + 1], struct failure *f)
{
    unsigned char sb[SQUASHFS_SUPERBLOCK_SIZE];
    if (pread(img->fd, sb, sizeof sb, (off_t)img->offset) != (ssize_t)sizeof sb) {
        fail_set(f, RT_EXIT_IOERR, "cannot read %s: %s", img->path, strerror(errno));
        return -1;
    }
    uint64_t inode_table = read_uint(sb + 64, 8, false);
    uint64_t used = img->fs_bytes ? img->fs_bytes : read_uint(sb + 40, 8, false);
    size_t len = inode_table < used ? (size_t)(used - inode_table) : 0;
    if (len > IDENTITY_METADATA_MAX)
        len = IDENTITY_METADATA_MAX;
    unsigned char *metadata = malloc(len ? len : 1);
    if (!metadata) {
        fail_set(f, RT_EXIT_OSERR, "out of memory");
        return -1;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(img->fd, metadata + done, len - done, (off_t)(img->offset + inode_table + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fail_set(f, RT_EXIT_IOERR, "cannot read %s: %s", img->path, n < 0 ? strerror(errno) : "it ends early");
            free(metadata);
            return -1;
        }
        done += (size_t)n;
    }
    squashfs_identity(sb, metadata, len, out);
    free(metadata);
    return 0;
}
