/* IdeA's Windows launchers, built with MinGW-w64 by packaging/windows/build.py:
 *
 *   bin\idea.exe  console program (on the user's PATH): runs python\python.exe -m idea <arguments>, waits,
 *                 and exits with its status; for `idea doctor`, `idea --version`, and `idea` from a terminal.
 *   IdeA.exe      GUI program (the Start-menu shortcut, -DIDEA_GUI): runs python\pythonw.exe -m idea
 *                 <arguments> and returns at once; pythonw has no console, so no window flashes.
 *
 * The bridge and the hook relay are not started through these: the run dirs name python\python.exe -m idea
 * directly (one process less per tool call), and the agent CLIs that start them run in a pseudo console
 * whose console they share, so no window appears either.
 *
 * The arguments are passed on exactly as typed (the rest of this process's command line), so quoting is
 * never redone. The console launcher puts Python in a job that ends with it (closing the terminal or
 * killing the launcher ends IdeA's subcommand too) and leaves Ctrl+C to Python.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <wchar.h>

#ifdef IDEA_GUI
#define PYTHON_RELATIVE L"python\\pythonw.exe"
#else
#define PYTHON_RELATIVE L"..\\python\\python.exe"
#endif

static void fail(const wchar_t *what, const wchar_t *path) {
    wchar_t message[2048];
    _snwprintf(message, 2047, L"IdeA cannot start: %ls %ls (Windows error %lu). Reinstall IdeA.", what, path,
               GetLastError());
    message[2047] = 0;
#ifdef IDEA_GUI
    MessageBoxW(NULL, message, L"IdeA", MB_ICONERROR | MB_OK);
#else
    fwprintf(stderr, L"%ls\n", message);
#endif
}

/* The command line after this program's own name (Windows rules: a quoted or unquoted first word). */
static const wchar_t *arguments_after_program(const wchar_t *line) {
    if (*line == L'"') {
        line++;
        while (*line && *line != L'"') line++;
        if (*line == L'"') line++;
    } else {
        while (*line && *line != L' ' && *line != L'\t') line++;
    }
    while (*line == L' ' || *line == L'\t') line++;
    return line;
}

#ifndef IDEA_GUI
static BOOL WINAPI leave_ctrl_c_to_python(DWORD event) {
    (void)event;
    return TRUE;
}
#endif

int main(void) {
    wchar_t self[32768], joined[32768], python[32768];
    DWORD length = GetModuleFileNameW(NULL, self, 32768);
    if (length == 0 || length >= 32768) { fail(L"cannot find its own path", L""); return 120; }
    wchar_t *slash = wcsrchr(self, L'\\');
    if (!slash) { fail(L"unexpected path", self); return 120; }
    slash[1] = 0;
    _snwprintf(joined, 32767, L"%ls%ls", self, PYTHON_RELATIVE);
    joined[32767] = 0;
    if (!GetFullPathNameW(joined, 32768, python, NULL)) { fail(L"bad path", joined); return 120; }
    if (GetFileAttributesW(python) == INVALID_FILE_ATTRIBUTES) { fail(L"missing", python); return 120; }

    const wchar_t *rest = arguments_after_program(GetCommandLineW());
    size_t size = wcslen(python) + wcslen(rest) + 32;
    wchar_t *command = (wchar_t *)HeapAlloc(GetProcessHeap(), 0, size * sizeof(wchar_t));
    if (!command) { fail(L"out of memory", L""); return 120; }
    _snwprintf(command, size, L"\"%ls\" -m idea%ls%ls", python, *rest ? L" " : L"", rest);
    command[size - 1] = 0;

    STARTUPINFOW startup;
    PROCESS_INFORMATION process;
    ZeroMemory(&startup, sizeof startup);
    startup.cb = sizeof startup;
    GetStartupInfoW(&startup);
#ifdef IDEA_GUI
    if (!CreateProcessW(python, command, NULL, NULL, FALSE, 0, NULL, NULL, &startup, &process)) {
        fail(L"could not run", python);
        return 121;
    }
    CloseHandle(process.hThread);
    CloseHandle(process.hProcess);
    return 0;
#else
    HANDLE job = CreateJobObjectW(NULL, NULL);
    if (job) {
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
        ZeroMemory(&limits, sizeof limits);
        limits.BasicLimitInformation.LimitFlags =
            JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK;
        SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits);
    }
    SetConsoleCtrlHandler(leave_ctrl_c_to_python, TRUE);
    if (!CreateProcessW(python, command, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL, &startup, &process)) {
        fail(L"could not run", python);
        return 121;
    }
    if (job) AssignProcessToJobObject(job, process.hProcess); /* may fail inside a job that forbids it */
    ResumeThread(process.hThread);
    CloseHandle(process.hThread);
    WaitForSingleObject(process.hProcess, INFINITE);
    DWORD status = 1;
    GetExitCodeProcess(process.hProcess, &status);
    CloseHandle(process.hProcess);
    return (int)status;
#endif
}
