#!/usr/bin/env bash
# Runs a shell command inside a Debian root, from `/`, with /proc, /sys and /dev mounted in a
# mount namespace of its own: the mounts vanish with the command, so removing the root later can
# never reach the host's /dev or /sys. The environment is emptied but for PATH and LANG, so
# nothing of the build machine's (a toolchain path, LD_LIBRARY_PATH) leaks in.
#   usage: in-root.sh ROOT 'command'
set -euo pipefail
exec unshare -m bash -euo pipefail -c '
    root=$1
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    exec chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        /bin/bash -euo pipefail -c "cd / && $2"
' _ "$1" "$2"
