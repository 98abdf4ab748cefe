#!/usr/bin/env bash
# Smoke test of IdeA's Windows installer under Wine (Debian wine 8.0), in a fresh 64-bit prefix, headless:
# silent install, `idea --version`, `idea doctor`, the Windows-side checks (packaging/windows/smoke_checks.py:
# the bridge failing on a missing endpoint, an MCP round trip over the loopback transport, Job objects, file
# locks, atomic replace, npm .cmd shims, cmd.exe quoting, Qt offscreen and through its windows platform),
# IdeA's window when the payload has the Windows terminal cell, upgrade keeping settings, uninstall keeping
# then removing the user's data.
#
#   packaging/windows/smoke.sh [dist/IdeA-<v>-setup.exe]
#
# What Wine cannot run (ConPTY above all) is listed in the README and bench/RESULTS.md: those checks are owed
# to a real Windows before a release.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
setup="${1:-$(ls "$repo"/dist/IdeA-*-setup.exe 2>/dev/null | sort -V | tail -1)}"
[ -f "$setup" ] || { echo "no installer: build it with ./dev package windows" >&2; exit 2; }
version="$(basename "$setup" | sed -E 's/^IdeA-(.*)-setup\.exe$/\1/')"

work="$(mktemp -d /tmp/idea-wine.XXXXXX)"
export WINEPREFIX="$work/prefix" WINEARCH=win64 WINEDEBUG=-all
# No Mono or Gecko install prompts in a fresh prefix; the native mscms stand-in below wins over Wine's.
export WINEDLLOVERRIDES="mscoree,mshtml=;mscms=n"
cleanup() {
  timeout 20 wineserver -k >/dev/null 2>&1 || true
  if [ -n "${xvfb:-}" ]; then kill "$xvfb" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
started=$SECONDS
failures=0
say() { printf '\033[1m[wine]\033[0m %s (at %d s)\n' "$*" "$((SECONDS - started))"; }
fail() { printf '\033[1;31m[wine] FAIL\033[0m %s\n' "$*"; failures=$((failures + 1)); }
# Every Wine call: a time limit (a failing Qt plugin shows a modal box nobody sees) and output through a
# pipe (a Windows program whose stdout is a plain file dies in CPython's stdio set-up).
w() { local limit="$1"; shift; timeout "$limit" wine "$@" 2>&1 | cat; return "${PIPESTATUS[0]}"; }
settle() { timeout 60 wineserver -w || true; }

# A headless X server for Qt's `windows` platform (Wine draws Windows windows on X); the offscreen
# platform needs none.
if command -v Xvfb >/dev/null; then
  for display in $(seq 90 99); do
    [ -e "/tmp/.X11-unix/X$display" ] || [ -e "/tmp/.X$display-lock" ] || break
  done
  Xvfb ":$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb=$!
  export DISPLAY=":$display"
fi

say "fresh prefix"
w 180 wineboot -i >/dev/null || true
settle

# Test-only stand-ins for DLLs Windows 10 has and Wine 8.0 lacks (../shared/tools/wine-stubs, never shipped):
# - icuuc.dll: Qt >= 6.10's Qt6Core.dll imports Windows' system ICU; without it no Qt module loads.
# - bcryptprimitives.dll: every Rust-built wheel (pydantic-core, rpds, cryptography, pywinpty) imports
#   ProcessPrng from it; without it pydantic, hence IdeA, cannot be imported.
# - mscms.dll: Qt's `windows` platform plugin calls WcsCreateIccProfile, on which Wine's mscms aborts.
stubs="${IDEA_WINE_STUBS:-}"
if [ -z "$stubs" ]; then
  for candidate in "$repo/../shared/tools/wine-stubs" "$repo/../../shared/tools/wine-stubs" /work/shared/tools/wine-stubs; do
    [ -f "$candidate/icuuc.c" ] && { stubs="$candidate"; break; }
  done
fi
[ -n "$stubs" ] || { echo "wine-stubs sources not found (set IDEA_WINE_STUBS)" >&2; exit 2; }
system32="$WINEPREFIX/drive_c/windows/system32"
x86_64-w64-mingw32-gcc -shared -O2 -o "$system32/icuuc.dll" "$stubs/icuuc.c"
x86_64-w64-mingw32-gcc -shared -O2 -o "$system32/bcryptprimitives.dll" "$stubs/bcryptprimitives.c" -lbcrypt
x86_64-w64-mingw32-gcc -shared -O2 -o "$system32/mscms.dll" "$stubs/mscms.c"
# A fresh prefix says Windows 7; IdeA supports Windows 10 1903 and newer.
w 60 winecfg /v win10 >/dev/null
settle

windows_path() { w 30 cmd /c "echo $1" | tr -d '\r' | tail -1; }
local_appdata="$(winepath -u "$(windows_path '%LOCALAPPDATA%')")"
roaming="$(winepath -u "$(windows_path '%APPDATA%')")"
root="$local_appdata/Programs/IdeA"
idea="$root/bin/idea.exe"
user_data="$roaming/app.idea.ide"

say "silent install of $(basename "$setup") ($(du -m "$setup" | cut -f1) MiB)"
t0=$SECONDS
w 300 "$setup" /S || fail "setup.exe /S exited with $?"
settle
install_s=$((SECONDS - t0))
for path in "$root/IdeA.exe" "$idea" "$root/python/python.exe" "$root/python/pythonw.exe" \
            "$root/Uninstall IdeA.exe" "$root/python/Lib/site-packages/idea/__main__.py"; do
  [ -f "$path" ] || fail "not installed: $path"
done
ls "$WINEPREFIX"/drive_c/users/*/AppData/Roaming/Microsoft/Windows/Start\ Menu/Programs/IdeA.lnk >/dev/null 2>&1 ||
  fail "no Start-menu shortcut"
registry="$(w 30 reg query 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\IdeA' || true)"
for key in DisplayName DisplayVersion UninstallString QuietUninstallString InstallLocation; do
  grep -q "$key" <<<"$registry" || fail "uninstall entry lacks $key"
done
grep -q "$version" <<<"$registry" || fail "uninstall entry does not name version $version"
path_value="$(w 30 reg query 'HKCU\Environment' /v Path || true)"
grep -qi 'Programs\\IdeA\\bin' <<<"$path_value" || fail "the idea command's folder is not on the user's PATH"
echo "installed in ${install_s} s; payload $(du -sm "$root" | cut -f1) MiB"

say "idea --version"
out="$(w 60 "$idea" --version)" || fail "idea --version exited with $?"
echo "$out"
[ "$(tr -d '\r' <<<"$out" | tail -1)" = "IdeA $version" ] || fail "idea --version said: $out"

# Python's platform module asks WMI, whose Wine implementation aborts in an unimplemented propsys function;
# with WMI disabled Python falls back to the registry, as it would on a Windows without WMI.
export WINEDLLOVERRIDES="$WINEDLLOVERRIDES;wbemprox="
say "idea doctor"
set +e
doctor="$(w 120 "$idea" doctor)"; doctor_rc=$?
if [ -z "$doctor" ]; then
  # Seen once in CI under Wine: doctor exited at once with status 1 and printed nothing, not even a
  # traceback; the same installer passed on every later run. A second try tells that apart from a doctor
  # that really fails, and the first try's status stays in the log.
  echo "(idea doctor printed nothing and exited with $doctor_rc; running it again)"
  settle
  doctor="$(w 120 "$idea" doctor)"; doctor_rc=$?
fi
set -e
echo "$doctor"
grep -q "Installed as *Windows setup" <<<"$doctor" || fail "doctor does not see the Windows setup"
grep -q "Qt platform *windows" <<<"$doctor" || fail "doctor: Qt's windows platform does not start"
grep -q 'User data *C:\\users\\.*\\AppData\\Roaming\\app.idea.ide' <<<"$doctor" || fail "doctor: user data not in %APPDATA%"
native=0
[ -d "$root/python/Lib/site-packages/idea/ui/terminal/native" ] && native=1
if [ "$doctor_rc" -ne 0 ]; then
  # Without the Windows terminal cell in this build, its absence is the one problem doctor may report.
  problems="$(sed -n '/^IdeA cannot start/,$p' <<<"$doctor" | grep '^- ' || true)"
  if [ "$native" -eq 1 ] || [ "$(wc -l <<<"$problems")" -ne 1 ] || ! grep -q "^- Terminal backend" <<<"$problems"; then
    fail "idea doctor exited with $doctor_rc"
  else
    echo "(this build has no Windows terminal cell: doctor reports it, as it should)"
  fi
fi

say "Windows-side checks (transport, Job objects, locks, replace, .cmd shims, cmd.exe, Qt)"
checks_dir="$work/checks"
mkdir -p "$checks_dir"
cp "$here/smoke_checks.py" "$checks_dir/"
w 600 "$root/python/python.exe" "$(winepath -w "$checks_dir/smoke_checks.py")" "$(winepath -w "$root")" \
  "$(winepath -w "$checks_dir")" || fail "$? Windows-side check(s) failed"
mkdir -p "$repo/build/windows"
for shot in "$checks_dir"/qt-*.png; do [ -f "$shot" ] && cp "$shot" "$repo/build/windows/wine-$(basename "$shot")"; done

if [ "$native" -eq 1 ]; then
  # Through Qt's own `windows` platform when Xvfb runs, as a person sees it: the offscreen platform finds no
  # font in Wine's Windows font folder and draws every letter as a box. Under Wine, a first start takes about
  # 30 s before the project is open, hence the long wait before the capture.
  platform=offscreen
  [ -n "${DISPLAY:-}" ] && platform=windows
  say "IdeA's window ($platform platform)"
  project="$work/project"
  mkdir -p "$project"
  shot="$work/idea-window.png"
  w 240 "$idea" "$(winepath -w "$project")" --screenshot "$(winepath -w "$shot")" --quit-after 60000 \
    -platform "$platform" || fail "the GUI exited with $?"
  if [ -s "$shot" ]; then cp "$shot" "$repo/build/windows/idea-wine.png"; else fail "no screenshot of IdeA's window"; fi
  for extra in "$work"/idea-window-*.png; do  # dialogs open at the capture (the first-run wizard)
    [ -f "$extra" ] && cp "$extra" "$repo/build/windows/idea-wine-${extra##*/idea-window-}"
  done
else
  say "IdeA's window: not in this build (no Windows terminal cell, idea/ui/terminal/native); Qt was checked above"
fi

say "an upgrade while IdeA runs is refused, and nothing is removed"
w 60 "$root/python/python.exe" -c "import time; time.sleep(15)" >/dev/null &
busy=$!
sleep 3
set +e
w 120 "$setup" /S >/dev/null; busy_rc=$?
set -e
[ "$busy_rc" -ne 0 ] || fail "setup.exe /S replaced a running IdeA (exit 0)"
[ -f "$root/python/python.exe" ] || fail "the refused upgrade removed the program"
wait "$busy" || true  # the stand-in IdeA ends by itself
settle

say "upgrade over the installed version keeps the user's settings"
mkdir -p "$user_data"
printf '{\n  "colorScheme": "light"\n}\n' >"$user_data/settings.json"
echo "stale" >"$root/python/Lib/site-packages/idea/left_over_from_an_old_version.py"
w 300 "$setup" /S || fail "the upgrade exited with $?"
settle
grep -q '"light"' "$user_data/settings.json" || fail "the upgrade lost the user's settings"
[ ! -e "$root/python/Lib/site-packages/idea/left_over_from_an_old_version.py" ] || fail "the upgrade kept old files"
[ "$(w 60 "$idea" --version | tr -d '\r' | tail -1)" = "IdeA $version" ] || fail "IdeA does not run after the upgrade"

say "silent uninstall keeps the user's data"
w 120 "$root/Uninstall IdeA.exe" /S || fail "uninstall exited with $?"
settle
sleep 2  # the uninstaller copies itself to a temporary folder and finishes from there
settle
[ ! -e "$root/python" ] && [ ! -e "$root/IdeA.exe" ] || fail "the program files are still there"
w 30 reg query 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\IdeA' >/dev/null 2>&1 &&
  fail "the Apps & features entry is still there"
grep -qi 'Programs\\IdeA\\bin' <<<"$(w 30 reg query 'HKCU\Environment' /v Path || true)" &&
  fail "the idea command's folder is still on PATH"
[ -f "$user_data/settings.json" ] || fail "the uninstall removed the user's settings unasked"

say "uninstall with /REMOVEDATA removes them"
w 300 "$setup" /S || fail "reinstall exited with $?"
settle
w 120 "$root/Uninstall IdeA.exe" /S /REMOVEDATA || fail "uninstall /REMOVEDATA exited with $?"
settle
sleep 2
settle
[ ! -e "$user_data" ] || fail "/REMOVEDATA left $user_data"

say "done: $failures failure(s); install ${install_s} s; whole smoke test $((SECONDS - started)) s"
[ "$failures" -eq 0 ]
