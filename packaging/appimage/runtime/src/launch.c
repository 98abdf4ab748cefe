#include "launch.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Signals passed on to the child. Job-control stops (SIGTSTP, SIGTTIN, SIGTTOU) keep their default action:
 * the terminal stops the whole process group, runtime and application together. */
static const int forwarded[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGALRM};
#define FORWARDED_COUNT (sizeof forwarded / sizeof forwarded[0])

static sigset_t handled, caller_mask;
static struct sigaction caller_actions[FORWARDED_COUNT], caller_chld;
static bool taken_over;

void signals_take_over(void)
{
    if (taken_over)
        return;
    taken_over = true;
    sigemptyset(&handled);
    for (size_t i = 0; i < FORWARDED_COUNT; i++) {
        sigaddset(&handled, forwarded[i]);
        sigaction(forwarded[i], NULL, &caller_actions[i]);
    }
    sigaddset(&handled, SIGCHLD);
    /* An inherited SIG_IGN for SIGCHLD would reap the child behind our back. */
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGCHLD, &dfl, &caller_chld);
    sigprocmask(SIG_BLOCK, &handled, &caller_mask);
}

void signals_give_back(void)
{
    if (!taken_over)
        return;
    taken_over = false;
    for (size_t i = 0; i < FORWARDED_COUNT; i++)
        sigaction(forwarded[i], &caller_actions[i], NULL);
    sigaction(SIGCHLD, &caller_chld, NULL);
    sigprocmask(SIG_SETMASK, &caller_mask, NULL);
}

/* Checks AppRun, sets the environment and builds AppRun's argv (free it). NULL with f set. */
static char **prepare(const struct launch *l, char apprun[PATH_MAX], struct failure *f)
{
    if (!fmt_path(apprun, PATH_MAX, "%s/AppRun", l->appdir)) {
        fail_set(f, RT_EXIT_OSERR, "path too long: %s", l->appdir);
        return NULL;
    }
    struct stat st;
    if (stat(apprun, &st) != 0) {
        fail_set(f, RT_EXIT_NOTFOUND, MSG_NO_APPRUN);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || access(apprun, X_OK) != 0) {
        fail_set(f, RT_EXIT_NOEXEC, "this AppImage's AppRun is not an executable file");
        return NULL;
    }
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd))
        setenv("OWD", cwd, 1);
    setenv("APPIMAGE", l->image_path, 1);
    setenv("APPDIR", l->appdir, 1);
    setenv("ARGV0", l->argv0, 1);

    size_t argc = 0;
    while (l->args[argc])
        argc++;
    char **argv = calloc(argc + 2, sizeof *argv);
    if (!argv) {
        fail_set(f, RT_EXIT_OSERR, "out of memory");
        return NULL;
    }
    argv[0] = apprun;
    memcpy(argv + 1, l->args, argc * sizeof *argv);
    return argv;
}

void launch_exec(const struct launch *l, struct failure *f)
{
    char apprun[PATH_MAX];
    char **argv = prepare(l, apprun, f);
    if (!argv)
        return;
    execv(apprun, argv);
    fail_set(f, errno == ENOENT ? RT_EXIT_NOTFOUND : RT_EXIT_NOEXEC, "cannot start AppRun: %s", strerror(errno));
    free(argv);
}

int launch_spawn(const struct launch *l, pid_t *child, struct failure *f)
{
    char apprun[PATH_MAX];
    char **argv = prepare(l, apprun, f);
    if (!argv)
        return -1;

    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fail_set(f, RT_EXIT_OSERR, "cannot start AppRun: %s", strerror(errno));
        free(argv);
        return -1;
    }
    if (pid == 0) {
        if (l->die_with_runtime) {
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (getppid() != parent)
                _exit(RT_EXIT_OSERR);
        }
        signals_give_back();
        execv(apprun, argv);
        int err = errno;
        if (err == EIO) { /* the mount could not read it */
            msg("this AppImage is damaged: AppRun cannot be read from it. Download it again.");
            _exit(RT_EXIT_DAMAGED);
        }
        msg("cannot start AppRun: %s", strerror(err));
        _exit(err == ENOENT ? RT_EXIT_NOTFOUND : RT_EXIT_NOEXEC);
    }
    free(argv);
    *child = pid;
    return 0;
}

int launch_wait(pid_t child)
{
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(&handled, &si);
        if (sig < 0)
            continue; /* EINTR */
        if (sig == SIGCHLD) {
            int status;
            pid_t r;
            while ((r = waitpid(child, &status, WNOHANG)) < 0 && errno == EINTR)
                ;
            if (r == child && (WIFEXITED(status) || WIFSIGNALED(status)))
                return status;
            if (r < 0)
                return 0;
            continue;
        }
        /* The terminal (Ctrl+C, a resize, a hang-up) signals the whole foreground process group: the child,
         * which shares ours, has it already. */
        if (si.si_code == SI_KERNEL)
            continue;
        kill(child, sig);
    }
}

void wait_for_stop_signal(void)
{
    for (;;) {
        int sig = sigwaitinfo(&handled, NULL);
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
            return;
    }
}

void exit_like(int status)
{
    if (WIFEXITED(status))
        exit(WEXITSTATUS(status));
    int sig = WTERMSIG(status);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core); /* the child's crash is not the runtime's: no core file of ours */
    fflush(NULL);
    signal(sig, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    raise(sig);
    exit(128 + sig);
}
