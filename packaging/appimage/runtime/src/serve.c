#include "serve.h" /* squashfuse's headers first (sqfs.h) */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>

/* Set at INIT when the kernel opens files without asking (then fi->fh is 0 in read). */
static bool no_open;

/* Decoded inodes by FUSE inode number, for reads without a file handle. Direct-mapped. */
#define INODE_SLOTS 256
static struct {
    fuse_ino_t ino; /* 0: empty */
    sqfs_inode inode;
} inodes[INODE_SLOTS];

/* One reply buffer, reused: the session is served by a single thread. */
static char *reply_buf;
static size_t reply_cap;

static void resize_cache(sqfs_cache *cache, size_t bytes, size_t block_size)
{
    size_t blocks = block_size ? bytes / block_size : 0;
    if (blocks < SERVE_MIN_BLOCKS)
        blocks = SERVE_MIN_BLOCKS;
    sqfs_cache_destroy(cache);
    if (sqfs_block_cache_init(cache, blocks) != SQFS_OK)
        sqfs_block_cache_init(cache, 1); /* squashfuse's own size; a failure here shows at the first read */
}

void serve_tune(sqfs *fs)
{
    resize_cache(&fs->data_cache, SERVE_DATA_CACHE_BYTES, fs->sb.block_size);
    resize_cache(&fs->frag_cache, SERVE_FRAGMENT_CACHE_BYTES, fs->sb.block_size);
}

static void serve_init(void *userdata, struct fuse_conn_info *conn)
{
    (void)userdata;
    no_open = (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) != 0;
}

static void serve_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    /* The mount is read-only: the kernel refuses opens for writing before they reach us. */
    if (no_open) {
        fuse_reply_err(req, ENOSYS);
        return;
    }
    sqfs_ll_op_open(req, ino, fi);
}

static sqfs_inode *inode_of(sqfs_ll *ll, fuse_ino_t ino)
{
    size_t slot = ino % INODE_SLOTS;
    if (inodes[slot].ino != ino) {
        inodes[slot].ino = 0;
        if (sqfs_ll_inode(ll, &inodes[slot].inode, ino) != SQFS_OK)
            return NULL;
        inodes[slot].ino = ino;
    }
    return &inodes[slot].inode;
}

static void serve_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
    if (fi->fh) { /* opened through squashfuse's open */
        sqfs_ll_op_read(req, ino, size, off, fi);
        return;
    }
    sqfs_ll *ll = fuse_req_userdata(req);
    sqfs_inode *inode = inode_of(ll, ino);
    if (!inode) {
        fuse_reply_err(req, EIO);
        return;
    }
    if (!S_ISREG(inode->base.mode)) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    if (off < 0 || (uint64_t)off >= inode->xtra.reg.file_size || size == 0) {
        fuse_reply_buf(req, NULL, 0);
        return;
    }
    if (size > reply_cap) {
        char *bigger = realloc(reply_buf, size);
        if (!bigger) {
            fuse_reply_err(req, ENOMEM);
            return;
        }
        reply_buf = bigger;
        reply_cap = size;
    }
    sqfs_off_t got = (sqfs_off_t)size;
    if (sqfs_read_range(&ll->fs, inode, off, &got, reply_buf) != SQFS_OK)
        fuse_reply_err(req, EIO);
    else
        fuse_reply_buf(req, reply_buf, (size_t)got);
}

const struct fuse_lowlevel_ops serve_ops = {
    .init = serve_init,
    .lookup = sqfs_ll_op_lookup,
    .forget = sqfs_ll_op_forget,
    .getattr = sqfs_ll_op_getattr,
    .readlink = sqfs_ll_op_readlink,
    .open = serve_open,
    .read = serve_read,
    .release = sqfs_ll_op_release,
    .opendir = sqfs_ll_op_opendir,
    .readdir = sqfs_ll_op_readdir,
    .releasedir = sqfs_ll_op_releasedir,
    .statfs = stfs_ll_op_statfs,
    .getxattr = sqfs_ll_op_getxattr,
    .listxattr = sqfs_ll_op_listxattr,
    .create = sqfs_ll_op_create,
};
