#include "sqfs.h"

#include <string.h>

#include "image.h"

int sqfs_open_payload(sqfs *fs, const struct image *img, struct failure *f)
{
    memset(fs, 0, sizeof *fs);
    sqfs_err err = sqfs_init(fs, img->fd, (size_t)img->offset);
    if (err == SQFS_OK)
        return 0;
    const char *why;
    switch (err) {
    case SQFS_BADFORMAT:
        why = "its file system is not a SquashFS this runtime can read";
        break;
    case SQFS_BADVERSION:
        why = "its SquashFS version is not supported";
        break;
    case SQFS_BADCOMP:
        why = "its SquashFS uses a compression this runtime was built without";
        break;
    default:
        why = "its SquashFS tables cannot be read (the file is corrupt)";
        break;
    }
    fail_set(f, RT_EXIT_DAMAGED, "this AppImage is damaged: %s. Download it again.", why);
    return -1;
}

int sqfs_find_apprun(sqfs *fs, struct failure *f)
{
    sqfs_inode inode;
    bool found = false;
    if (sqfs_inode_get(fs, &inode, sqfs_inode_root(fs)) != SQFS_OK ||
        sqfs_lookup_path(fs, &inode, "AppRun", &found) != SQFS_OK) {
        fail_set(f, RT_EXIT_DAMAGED, "this AppImage is damaged: its root folder cannot be read. Download it again.");
        return -1;
    }
    if (!found) {
        fail_set(f, RT_EXIT_NOTFOUND, MSG_NO_APPRUN);
        return -1;
    }
    return 0;
}
