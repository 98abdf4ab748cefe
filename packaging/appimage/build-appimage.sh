#!/usr/bin/env bash
# Builds an AppImage: IdeA's own type-2 runtime (built here from runtime/ when needed) followed by a
# SquashFS of an AppDir, made executable. Works offline: nothing is downloaded.
#
#   build-appimage.sh APPDIR OUTPUT [--version V] [--compression lz4|zstd] [--runtime FILE] [--build-dir DIR]
#
#   APPDIR        an executable AppRun, exactly one .desktop entry at the root whose Icon= names an icon file
#                 beside it (ICON.png or ICON.svg), optionally AppStream metainfo in usr/share/metainfo/
#   OUTPUT        the AppImage to write (replaced atomically; its folder must exist)
#   --version V   recorded as X-AppImage-Version in the image's desktop entry
#   --compression lz4 (default): LZ4 high compression, 256 KiB blocks, which a start decompresses fastest;
#                 zstd: about a fifth smaller, and slower to start through FUSE (figures: bench/RESULTS.md)
#   --runtime F   use this runtime instead of building one
#   --build-dir D where the runtime is built (default: <repository>/build/appimage-runtime)
#
# Checks before building: the AppDir's layout, desktop-file-validate on the entry when it is installed,
# appstreamcli validate on the metainfo when there is one. Prints the image's path and sizes on success;
# exits 1 with the reason otherwise, 2 on a usage error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
prog="build-appimage"

say() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { say "$*"; exit 1; }
usage() {
  echo "usage: $prog APPDIR OUTPUT [--version V] [--compression lz4|zstd] [--runtime FILE] [--build-dir DIR]" >&2
  exit 2
}

appdir="" output="" version="" runtime="" build_dir="$repo/build/appimage-runtime" compression=lz4
while [ $# -gt 0 ]; do
  case "$1" in
    --version) [ $# -ge 2 ] || usage; version="$2"; shift 2 ;;
    --compression) [ $# -ge 2 ] || usage; compression="$2"; shift 2 ;;
    --runtime) [ $# -ge 2 ] || usage; runtime="$2"; shift 2 ;;
    --build-dir) [ $# -ge 2 ] || usage; build_dir="$2"; shift 2 ;;
    -h|--help) usage ;;
    -*) say "unknown option $1"; usage ;;
    *)
      if [ -z "$appdir" ]; then appdir="$1"
      elif [ -z "$output" ]; then output="$1"
      else usage
      fi
      shift ;;
  esac
done
[ -n "$appdir" ] && [ -n "$output" ] || usage
case "$version" in *[![:alnum:].+~_-]*) die "--version '$version': use letters, digits and . + ~ _ - only" ;; esac
case "$compression" in
  lz4) squashfs_compression=(-comp lz4 -Xhc -b 256K) ;;
  zstd) squashfs_compression=(-comp zstd) ;;
  *) say "--compression $compression: use lz4 or zstd"; usage ;;
esac

# ---- the AppDir ----------------------------------------------------------------------------------------
[ -d "$appdir" ] || die "$appdir is not a folder"
appdir="$(cd "$appdir" && pwd)"
[ -e "$appdir/AppRun" ] || die "$appdir has no AppRun (the program the runtime starts)"
[ -f "$appdir/AppRun" ] && [ -x "$appdir/AppRun" ] || die "$appdir/AppRun is not an executable file"

shopt -s nullglob
desktops=("$appdir"/*.desktop)
shopt -u nullglob
[ ${#desktops[@]} -eq 1 ] ||
  die "$appdir must hold exactly one .desktop entry at its root (found ${#desktops[@]})"
desktop="${desktops[0]}"
desktop_name="$(basename "$desktop")"

# The value of KEY in the [Desktop Entry] group.
desktop_key() {
  awk -v key="$1" '
    /^\[/ { group = $0; next }
    group == "[Desktop Entry]" && index($0, key "=") == 1 { print substr($0, length(key) + 2); exit }
  ' "$desktop"
}
grep -qx '\[Desktop Entry\]' "$desktop" || die "$desktop_name has no [Desktop Entry] group"
for key in Type Name Exec Icon; do
  [ -n "$(desktop_key "$key")" ] || die "$desktop_name has no $key= key"
done
if command -v desktop-file-validate >/dev/null 2>&1; then
  desktop-file-validate "$desktop" >&2 || die "$desktop_name does not pass desktop-file-validate (above)"
else
  say "desktop-file-validate not found (package desktop-file-utils): checked $desktop_name's keys only"
fi

icon_name="$(desktop_key Icon)"
case "$icon_name" in */*|*.png|*.svg|*.xpm) die "$desktop_name: Icon=$icon_name must be a bare name (no path, no extension)" ;; esac
icon=""
for ext in png svg svgz xpm; do
  [ -f "$appdir/$icon_name.$ext" ] && { icon="$icon_name.$ext"; break; }
done
[ -n "$icon" ] || die "$appdir has no icon $icon_name.png or $icon_name.svg at its root (named by Icon= in $desktop_name)"

shopt -s nullglob
metainfos=("$appdir"/usr/share/metainfo/*.xml)
shopt -u nullglob
for metainfo in "${metainfos[@]}"; do
  command -v appstreamcli >/dev/null 2>&1 ||
    die "appstreamcli not found: install appstream to validate ${metainfo#"$appdir"/}"
  appstreamcli validate --no-net "$metainfo" >&2 || die "${metainfo#"$appdir"/} does not pass appstreamcli validate (above)"
done

# ---- the runtime ---------------------------------------------------------------------------------------
command -v mksquashfs >/dev/null 2>&1 || die "mksquashfs not found: install squashfs-tools"
if [ -z "$runtime" ]; then
  for tool in make cc pkg-config; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found: the runtime is built from source (packages: gcc make pkg-config)"
  done
  pkg-config --exists fuse3 squashfuse_ll ||
    die "the runtime's libraries are missing: install libsquashfuse-dev libfuse3-dev libzstd-dev liblz4-dev liblzo2-dev liblzma-dev zlib1g-dev"
  make -s -C "$here/runtime" O="$(mkdir -p "$build_dir" && cd "$build_dir" && pwd)" >&2 ||
    die "building the runtime failed (above)"
  runtime="$build_dir/appimage-runtime"
fi
[ -f "$runtime" ] && [ -x "$runtime" ] || die "runtime $runtime is not an executable file"
[ "$(head -c 11 "$runtime" | tail -c 3 | od -An -c | tr -d ' ')" = 'AI002' ] ||
  die "runtime $runtime lacks the AppImage type-2 magic (AI\\002 at offset 8)"

# ---- the image -----------------------------------------------------------------------------------------
out_dir="$(dirname "$output")"
[ -d "$out_dir" ] || die "$out_dir does not exist"
work="$(mktemp -d "$out_dir/.build-appimage.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Additions made inside the image only, the AppDir stays untouched: .DirIcon when missing, and the version.
pseudo=()
exclude=()
[ -e "$appdir/.DirIcon" ] || [ -L "$appdir/.DirIcon" ] || pseudo+=(-p ".DirIcon s 0777 0 0 $icon")
if [ -n "$version" ]; then
  grep -v '^X-AppImage-Version=' "$desktop" |
    awk -v v="$version" '{ print } $0 == "[Desktop Entry]" { print "X-AppImage-Version=" v }' >"$work/entry.desktop"
  pseudo+=(-p "$desktop_name f 0644 0 0 cat $(printf '%q' "$work/entry.desktop")")
  exclude=(-e "$desktop_name")
fi

# -e must come last: mksquashfs reads everything after it as names to leave out.
mksquashfs "$appdir" "$work/payload.squashfs" -root-owned -noappend "${squashfs_compression[@]}" -quiet -no-progress \
  "${pseudo[@]}" "${exclude[@]}" >&2 || die "mksquashfs failed (above)"
cat "$runtime" "$work/payload.squashfs" >"$work/image"
chmod 0755 "$work/image"

# The runtime must find the file system exactly where it was put.
runtime_size="$(stat -c %s "$runtime")"
found="$("$work/image" --appimage-offset)" || die "the built image does not run: $work/image --appimage-offset failed"
[ "$found" = "$runtime_size" ] || die "the built image reports its file system at $found, expected $runtime_size"

mv -f "$work/image" "$output"
squashfs_size="$(stat -c %s "$work/payload.squashfs")"
say "wrote $output ($(( (runtime_size + squashfs_size) / 1024 )) KiB: runtime $runtime_size + SquashFS $squashfs_size bytes)"
