"""The git adapters: pygit2 (libgit2 bundled in the wheel, no `git` process), the folder watcher, the
worktree file copier and the worker pool the git use cases run on."""
