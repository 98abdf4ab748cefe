"""The native terminal cell: IdeA's own painter over libghostty-vt (the `evp` binding), fed by a PTY that IdeA
owns (ConPTY on Windows, a POSIX PTY elsewhere). The Windows GUI backend; on Linux, chosen with
IDEA_TERMINAL=native."""
