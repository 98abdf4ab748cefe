/* C unit tests of the runtime's pure parts: SHA-256, the ELF payload offset, the type-2 magic, the squashfs
 * superblock checks, the image identity, entry-name safety and the live-mount checks on the mount table. Prints one line per failure and a closing "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/image.h"
#include "../src/livemount.h"
#include "../src/sha256.h"
#include "../src/util.h"

static int passed, failed;

#define CHECK(cond)                                                                                                \
    do {                                                                                                           \
        if (cond) {                                                                                                \
            passed++;                                                                                              \
        } else {                                                                                                   \
            failed++;                                                                                              \
            printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);                                               \
        }                                                                                                          \
    } while (0)

static void hex_of(const void *data, size_t len, char out[65])
{
    struct sha256 ctx;
    unsigned char digest[32];
    sha256_init(&ctx);
    sha256_update(&ctx, data, len);
    sha256_final(&ctx, digest);
    sha256_hex(digest, out);
}

static void test_sha256(void)
{
    char hex[65];
    hex_of("", 0, hex);
    CHECK(strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
    hex_of("abc", 3, hex);
    CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of(two_blocks, strlen(two_blocks), hex);
    CHECK(strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);

    /* One million 'a' fed in uneven pieces: the buffering across calls must not matter. */
    struct sha256 ctx;
    unsigned char digest[32];
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    sha256_init(&ctx);
    for (size_t done = 0, step = 1; done < 1000000; step = step * 7 % 997 + 1) {
        size_t take = done + step > 1000000 ? 1000000 - done : step;
        sha256_update(&ctx, a + done, take);
        done += take;
    }
    sha256_final(&ctx, digest);
    sha256_hex(digest, hex);
    CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
    free(a);

    /* Lengths around the padding boundary (55, 56, 63, 64 bytes): hashing in two pieces gives the same. */
    static const char digits[] = "0123456789012345678901234567890123456789012345678901234567890123456789";
    for (size_t len = 54; len <= 65; len++) {
        char one[65], split[65];
        hex_of(digits, len, one);
        sha256_init(&ctx);
        sha256_update(&ctx, digits, len / 2);
        sha256_update(&ctx, digits + len / 2, len - len / 2);
        sha256_final(&ctx, digest);
        sha256_hex(digest, split);
        CHECK(strcmp(one, split) == 0);
    }
    /* 56 bytes: the length no longer fits the first block's padding (known digest). */
    hex_of(two_blocks, 56, hex);
    CHECK(strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
}

static void put(unsigned char *p, int width, unsigned long long v, int big)
{
    for (int i = 0; i < width; i++)
        p[big ? width - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static void test_elf_offset(void)
{
    unsigned char h[64];
    uint64_t off = 0;
    const char *problem = NULL;

    memset(h, 0, sizeof h);
    memcpy(h, "\177ELF", 4);
    h[4] = 2; /* 64-bit */
    h[5] = 1; /* little-endian */
    put(h + 0x28, 8, 0x1a2b30, 0);
    put(h + 0x3a, 2, 64, 0);
    put(h + 0x3c, 2, 29, 0);
    CHECK(elf_payload_offset(h, sizeof h, &off, &problem) == 0);
    CHECK(off == 0x1a2b30 + 29 * 64);

    h[5] = 2; /* the same numbers big-endian */
    memset(h + 0x28, 0, 8);
    put(h + 0x28, 8, 0x1a2b30, 1);
    put(h + 0x3a, 2, 64, 1);
    put(h + 0x3c, 2, 29, 1);
    CHECK(elf_payload_offset(h, sizeof h, &off, &problem) == 0);
    CHECK(off == 0x1a2b30 + 29 * 64);

    memset(h, 0, sizeof h);
    memcpy(h, "\177ELF", 4);
    h[4] = 1; /* 32-bit */
    h[5] = 1;
    put(h + 0x20, 4, 5000, 0);
    put(h + 0x2e, 2, 40, 0);
    put(h + 0x30, 2, 12, 0);
    CHECK(elf_payload_offset(h, 52, &off, &problem) == 0);
    CHECK(off == 5000 + 12 * 40);
    CHECK(elf_payload_offset(h, 40, &off, &problem) == -1); /* header cut short */

    put(h + 0x30, 2, 0, 0); /* no section headers */
    CHECK(elf_payload_offset(h, 52, &off, &problem) == -1);
    CHECK(problem && strstr(problem, "section header"));

    memcpy(h, "MZ\0\0", 4);
    CHECK(elf_payload_offset(h, 52, &off, &problem) == -1);
    CHECK(problem && strstr(problem, "ELF"));

    memcpy(h, "\177ELF", 4);
    h[4] = 3;
    CHECK(elf_payload_offset(h, 52, &off, &problem) == -1);
}

static void test_magic(void)
{
    unsigned char h[16] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 'A', 'I', 2, 0, 0, 0, 0, 0};
    CHECK(appimage_type2_magic(h, sizeof h));
    h[10] = 1; /* type 1 */
    CHECK(!appimage_type2_magic(h, sizeof h));
    CHECK(!appimage_type2_magic(h, 10));
}

static void superblock(unsigned char *sb, unsigned long long bytes_used)
{
    memset(sb, 0, SQUASHFS_SUPERBLOCK_SIZE);
    memcpy(sb, "hsqs", 4);
    put(sb + 12, 4, 131072, 0); /* block size */
    put(sb + 20, 2, 6, 0);      /* zstd */
    put(sb + 22, 2, 17, 0);     /* block log */
    put(sb + 28, 2, 4, 0);      /* version 4.0 */
    put(sb + 40, 8, bytes_used, 0);
    put(sb + 48, 8, bytes_used - 16, 0); /* id table */
    put(sb + 56, 8, ~0ull, 0);           /* no xattrs */
    put(sb + 64, 8, 96, 0);              /* inode table */
    put(sb + 72, 8, 200, 0);             /* directory table */
    put(sb + 80, 8, bytes_used - 40, 0); /* fragment table */
    put(sb + 88, 8, bytes_used - 32, 0); /* export table */
}

static void test_superblock(void)
{
    unsigned char sb[SQUASHFS_SUPERBLOCK_SIZE];
    char problem[512];
    uint64_t used = 0;

    superblock(sb, 4000);
    CHECK(squashfs_superblock_check(sb, sizeof sb, 4096, &used, problem, sizeof problem) == 0);
    CHECK(used == 4000);
    CHECK(squashfs_superblock_check(sb, sizeof sb, 4000, &used, problem, sizeof problem) == 0);

    /* Fewer bytes in the file than the superblock says: truncated. */
    CHECK(squashfs_superblock_check(sb, sizeof sb, 3999, &used, problem, sizeof problem) == -2);
    CHECK(strstr(problem, "incomplete") != NULL);
    CHECK(squashfs_superblock_check(sb, sizeof sb, 50, &used, problem, sizeof problem) == -2);

    memcpy(sb, "hsqt", 4);
    CHECK(squashfs_superblock_check(sb, sizeof sb, 4096, &used, problem, sizeof problem) == -1);
    CHECK(strstr(problem, "no SquashFS") != NULL);

    superblock(sb, 4000);
    put(sb + 22, 2, 16, 0); /* block log disagrees with the block size */
    CHECK(squashfs_superblock_check(sb, sizeof sb, 4096, &used, problem, sizeof problem) == -1);

    superblock(sb, 4000);
    put(sb + 28, 2, 3, 0);
    CHECK(squashfs_superblock_check(sb, sizeof sb, 4096, &used, problem, sizeof problem) == -1);
    CHECK(strstr(problem, "version") != NULL);

    superblock(sb, 4000);
    put(sb + 72, 8, 5000, 0); /* a table past the end */
    CHECK(squashfs_superblock_check(sb, sizeof sb, 8192, &used, problem, sizeof problem) == -1);
    CHECK(strstr(problem, "corrupt") != NULL);

    superblock(sb, 4000);
    put(sb + 20, 2, 9, 0); /* unknown compressor */
    CHECK(squashfs_superblock_check(sb, sizeof sb, 4096, &used, problem, sizeof problem) == -1);
}

static void test_names(void)
{
    CHECK(name_component_safe("AppRun"));
    CHECK(name_component_safe(".DirIcon"));
    CHECK(name_component_safe("..."));
    CHECK(!name_component_safe(""));
    CHECK(!name_component_safe("."));
    CHECK(!name_component_safe(".."));
    CHECK(!name_component_safe("a/b"));
}

static void test_identity(void)
{
    unsigned char sb[SQUASHFS_SUPERBLOCK_SIZE] = {0}, meta[300];
    for (size_t i = 0; i < sizeof meta; i++)
        meta[i] = (unsigned char)(i * 7);
    char a[IMAGE_IDENTITY_LEN + 1], b[IMAGE_IDENTITY_LEN + 1];
    squashfs_identity(sb, meta, sizeof meta, a);
    CHECK(strlen(a) == IMAGE_IDENTITY_LEN && strspn(a, "0123456789abcdef") == IMAGE_IDENTITY_LEN);
    squashfs_identity(sb, meta, sizeof meta, b);
    CHECK(strcmp(a, b) == 0);
    meta[150] ^= 1; /* one block size in one inode */
    squashfs_identity(sb, meta, sizeof meta, b);
    CHECK(strcmp(a, b) != 0);
    meta[150] ^= 1;
    sb[8] = 1; /* the superblock's mkfs time */
    squashfs_identity(sb, meta, sizeof meta, b);
    CHECK(strcmp(a, b) != 0);
    squashfs_identity(sb, meta, sizeof meta - 1, b); /* one byte less of metadata */
    CHECK(strcmp(a, b) != 0);
}

#define ID "0123456789abcdef0123456789abcdef"
#define LIVE_LINE "612 27 0:91 / /tmp/.mount_IdeA-0.abc123 ro,nosuid,nodev,relatime shared:301 - fuse.appimage " \
                  "IdeA-0.1.0-x86_64.AppImage@" ID " ro,user_id=1000,group_id=1000"

static void test_mountinfo(void)
{
    struct mount_entry e;
    CHECK(mountinfo_parse_line(LIVE_LINE, &e) == 0);
    CHECK(e.major == 0 && e.minor == 91);
    CHECK(strcmp(e.root, "/") == 0 && strcmp(e.mountpoint, "/tmp/.mount_IdeA-0.abc123") == 0);
    CHECK(strcmp(e.options, "ro,nosuid,nodev,relatime") == 0 && strcmp(e.fstype, "fuse.appimage") == 0);
    CHECK(strcmp(e.source, "IdeA-0.1.0-x86_64.AppImage@" ID) == 0);
    CHECK(strcmp(e.super_options, "ro,user_id=1000,group_id=1000") == 0);
    /* No optional fields, and escapes undone (a TMPDIR with a space, a tab, a backslash). */
    CHECK(mountinfo_parse_line("5 1 0:7 / /home/ada/my\\040tmp\\011x/\\134m ro - fuse.appimage a@b ro,user_id=0",
                               &e) == 0);
    CHECK(strcmp(e.mountpoint, "/home/ada/my tmp\tx/\\m") == 0);
    CHECK(mountinfo_parse_line("5 1 0:7 / /x\\09 ro - fuse.appimage a@b ro,user_id=0", &e) == 0);
    CHECK(strcmp(e.mountpoint, "/x\\09") == 0); /* not an octal escape: kept as it is */
    CHECK(mountinfo_parse_line("", &e) != 0);
    CHECK(mountinfo_parse_line("5 1 0:7 / /x ro shared:1", &e) != 0);              /* no separator */
    CHECK(mountinfo_parse_line("5 1 zero / /x ro - fuse.appimage a@b ro", &e) != 0); /* no major:minor */
    CHECK(mountinfo_parse_line("5 1 0:7 / /x ro - fuse.appimage a@b", &e) != 0);     /* no super options */

    const char *table = "26 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
                        "30 26 0:40 / /tmp rw - tmpfs tmpfs rw\n"
                        "40 30 0:50 / /tmp/.mount_a ro,nosuid,nodev - fuse.appimage A@" ID " ro,user_id=1000\n"
                        "41 40 0:51 / /tmp/.mount_a ro,nosuid,nodev - fuse.appimage B@ffff ro,user_id=1000\n"
                        "garbage line\n";
    CHECK(mountinfo_find(table, "/tmp/.mount_a", &e) == 0);
    CHECK(e.minor == 51 && strcmp(e.source, "B@ffff") == 0); /* the mount on top is the one seen */
    CHECK(mountinfo_find(table, "/tmp", &e) == 0 && strcmp(e.fstype, "tmpfs") == 0);
    CHECK(mountinfo_find(table, "/tmp/.mount_", &e) != 0);
    CHECK(mountinfo_find(table, "/tmp/.mount_a/usr", &e) != 0);
}

static void test_mount_entry_serves(void)
{
    struct mount_entry live, e;
    char why[256];
    CHECK(mountinfo_parse_line(LIVE_LINE, &live) == 0);
    CHECK(mount_entry_serves(&live, 1000, ID, why, sizeof why));

    CHECK(!mount_entry_serves(&live, 0, ID, why, sizeof why) && strstr(why, "another user"));
    CHECK(!mount_entry_serves(&live, 100, ID, why, sizeof why)); /* user_id=1000 is not user_id=100 */
    CHECK(!mount_entry_serves(&live, 1000, "fedcba9876543210fedcba9876543210", why, sizeof why) &&
          strstr(why, "another image"));
    CHECK(!mount_entry_serves(&live, 1000, "0123456789abcdef", why, sizeof why)); /* a prefix is not enough */

    e = live;
    snprintf(e.fstype, sizeof e.fstype, "fuse.squashfuse");
    CHECK(!mount_entry_serves(&e, 1000, ID, why, sizeof why) && strstr(why, "fuse.squashfuse"));
    e = live;
    snprintf(e.fstype, sizeof e.fstype, "tmpfs");
    CHECK(!mount_entry_serves(&e, 1000, ID, why, sizeof why));
    e = live;
    snprintf(e.options, sizeof e.options, "rw,nosuid,nodev");
    CHECK(!mount_entry_serves(&e, 1000, ID, why, sizeof why));
    e = live;
    snprintf(e.options, sizeof e.options, "rro,nosuid"); /* "ro" must be a whole option */
    CHECK(!mount_entry_serves(&e, 1000, ID, why, sizeof why));
    e = live;
    snprintf(e.root, sizeof e.root, "/usr"); /* a bind mount of a folder inside an image */
    CHECK(!mount_entry_serves(&e, 1000, ID, why, sizeof why));
    e = live;
    snprintf(e.source, sizeof e.source, "%s", ID); /* no '@' */
    CHECK(!mount_entry_serves(&e, 1000, ID, why, sizeof why));
    e = live;
    snprintf(e.super_options, sizeof e.super_options, "ro,user_id=10000,group_id=1000");
    CHECK(!mount_entry_serves(&e, 1000, ID, why, sizeof why));
    e = live;
    snprintf(e.super_options, sizeof e.super_options, "ro,group_id=1000,user_id=1000,allow_other");
    CHECK(mount_entry_serves(&e, 1000, ID, why, sizeof why));
}

static void test_live_mount_names(void)
{
    CHECK(live_mount_command("hook"));
    CHECK(live_mount_command("mcp-server"));
    CHECK(live_mount_command("sandbox-exec"));
    CHECK(!live_mount_command(""));
    CHECK(!live_mount_command("mcp"));
    CHECK(!live_mount_command("hooks"));
    CHECK(!live_mount_command("doctor"));
    CHECK(!live_mount_command("--appimage-mount"));
    CHECK(!live_mount_command("hook mcp-server"));

    char fsname[192];
    live_mount_fsname(fsname, sizeof fsname, "IdeA-0.1.0-x86_64.AppImage", ID);
    CHECK(strcmp(fsname, "IdeA-0.1.0-x86_64.AppImage@" ID) == 0);
    live_mount_fsname(fsname, sizeof fsname, "My App,ro=1@x", ID); /* nothing that ends an option */
    CHECK(strcmp(fsname, "My_App_ro_1_x@" ID) == 0);
    char small[40];
    live_mount_fsname(small, sizeof small, "a-long-image-name.AppImage", ID); /* the identity always fits */
    CHECK(strlen(small) == sizeof small - 1 && strcmp(strrchr(small, '@') + 1, ID) == 0);
}

int main(void)
{
    test_sha256();
    test_elf_offset();
    test_magic();
    test_superblock();
    test_names();
    test_identity();
    test_mountinfo();
    test_mount_entry_serves();
    test_live_mount_names();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
