# Sourced by the benchmark scripts: `need WHAT PACKAGE` installs the Debian package PACKAGE when
# WHAT is missing (as root; otherwise prints the exact command and stops). WHAT is a command, or
# a path when it has a slash (a plug-in such as /usr/lib/nagios/plugins/check_dummy).
# The benchmarks' peers are not the tests' packages, so the Makefile does not install them.
need() {  # need <command or path> <debian package>
    if [[ "$1" == */* ]]; then [ -e "$1" ] && return; else command -v "$1" >/dev/null 2>&1 && return; fi
    if [ "$(id -u)" != 0 ]; then echo "missing $1: run sudo apt-get install -y $2" >&2; exit 1; fi
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >/dev/null
}
