#!/usr/bin/env bash
# Fetch extra tmux versions from Debian packages into DEST, without installing them.
#
#   bash .ci/fetch-tmux.sh DEST
#
# * tmux from bookworm-backports (3.5a): unpacked with `dpkg -x`; it runs with the host's
#   libraries (it needs libjemalloc2, which is installed if missing and we are root).
# * tmux from sid (3.8): needs a newer glibc, so tmux and its libraries (libc6 included) are
#   unpacked into one private root and run through that root's dynamic loader.
#
# Result: executable wrappers DEST/tmux-<version> (version as reported by `tmux -V`), each
# usable exactly like a tmux binary. Idempotent: a suite whose wrapper already works is skipped.
# If a version cannot be fetched, a loud WARNING is printed and the script still exits 0.
#
# apt runs with a PRIVATE state (sources list, lists, cache) under DEST/.apt. The archive URI
# and keyring are derived at run time from the machine's own apt sources; no host name is
# hard-coded here.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 DEST" >&2
    exit 2
fi
mkdir -p "$1"
DEST=$(cd "$1" && pwd)

# Libraries unpacked together with sid's tmux (sid's libc6 and everything tmux links against).
SID_PACKAGES="tmux libc6 libevent-core-2.1-7t64 libjemalloc2 libsystemd0 libtinfo6 libcap2
libgcc-s1 liblz4-1 liblzma5 libzstd1 libgcrypt20 libgpg-error0 libutempter0"

warn() { # warn VERSION WHY...
    local v=$1
    shift
    {
        echo
        echo "################################################################################"
        echo "WARNING: could not fetch tmux $v: $*"
        echo "################################################################################"
        echo
    } >&2
}

# --- Debian archive URI + keyring from the host's apt configuration ------------------------

CODENAME=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
ARCHIVE_URI=""
ARCHIVE_KEYRING=""

# Prints "URI<TAB>SIGNED-BY" for every enabled `deb` entry whose suites include $CODENAME.
list_main_archive_entries() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        # deb822: stanzas separated by blank lines; continuation lines start with a space.
        awk -v codename="$CODENAME" '
            function flush() {
                if (uris != "" && types ~ /(^|[ \t])deb([ \t]|$)/ && tolower(enabled) != "no" &&
                    (" " suites " ") ~ (" " codename " ")) {
                    n = split(uris, u, /[ \t]+/)
                    for (i = 1; i <= n; i++) if (u[i] != "") print u[i] "\t" signed
                }
                uris = suites = types = signed = enabled = ""; field = ""
            }
            /^#/ { next }
            /^[ \t]*$/ { flush(); next }
            /^[ \t]/ { if (field == "signed-by") signed = "INLINE"; next }
            {
                field = tolower($0); sub(/:.*/, "", field)
                val = $0; sub(/^[^:]*:[ \t]*/, "", val); sub(/[ \t]+$/, "", val)
                if (field == "uris") uris = val
                else if (field == "suites") suites = val
                else if (field == "types") types = val
                else if (field == "enabled") enabled = val
                else if (field == "signed-by") signed = val
            }
            END { flush() }
        ' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -r "$f" ] || continue
        # One-line format: deb [opts] URI suite component...
        awk -v codename="$CODENAME" '
            { sub(/#.*/, "") }
            $1 == "deb" {
                opts = ""; i = 2
                if ($2 ~ /^\[/) {
                    while (i <= NF) { opts = opts " " $i; if ($i ~ /\]$/) break; i++ }
                    i++
                }
                uri = $i; suite = $(i + 1)
                if (suite != codename) next
                signed = ""
                if (match(opts, /signed-by=[^ \]]+/)) signed = substr(opts, RSTART + 10, RLENGTH - 10)
                print uri "\t" signed
            }
        ' "$f"
    done
}

find_archive() {
    local line
    if [ -z "$CODENAME" ]; then
        echo "no VERSION_CODENAME in /etc/os-release" >&2
        return 1
    fi
    line=$(list_main_archive_entries | head -n1)
    if [ -z "$line" ]; then
        echo "no apt source serves suite '$CODENAME'" >&2
        return 1
    fi
    ARCHIVE_URI=${line%%$'\t'*}
    ARCHIVE_KEYRING=${line#*$'\t'}
    case "$ARCHIVE_KEYRING" in
    INLINE) ARCHIVE_KEYRING="" ;; # inline key block: fall back to the global keyrings
    *) ARCHIVE_KEYRING=$(echo "$ARCHIVE_KEYRING" | tr -s ' ' ',') ;;
    esac
    echo "Debian archive (from host apt config): $ARCHIVE_URI (keyring: ${ARCHIVE_KEYRING:-apt default})"
}

# --- private apt ------------------------------------------------------------------------------

APT_DIR="$DEST/.apt"

apt_private() { # apt_private SUITE apt-get-args...
    local suite=$1
    shift
    local d="$APT_DIR/$suite"
    apt-get -q \
        -o Dir::Etc::SourceList="$d/sources.list" \
        -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::Etc::Preferences=/dev/null \
        -o Dir::Etc::PreferencesParts=/dev/null \
        -o Dir::State::Lists="$d/lists" \
        -o Dir::Cache="$d/cache" \
        -o Dir::Cache::pkgcache="" -o Dir::Cache::srcpkgcache="" \
        -o Acquire::Check-Valid-Until=false \
        -o Acquire::Retries=2 \
        -o Acquire::http::Timeout=30 -o Acquire::https::Timeout=30 \
        -o Acquire::Languages=none \
        -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false \
        "$@"
}

# apt_update SUITE SOURCE-OPTION: writes the private sources.list and runs apt-get update.
# Succeeds only if the suite's Packages index was fetched and verified; otherwise returns 2 if
# the signature could not be verified, 1 for other errors, with the first error in $APT_ERROR.
APT_ERROR=""
apt_update() {
    local suite=$1 opt=$2 d="$APT_DIR/$1" out rc
    rm -rf "$d"
    mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
    echo "deb ${opt:+[$opt] }$ARCHIVE_URI $suite main" >"$d/sources.list"
    echo "+ apt-get update ($(cat "$d/sources.list"))"
    rc=0
    out=$(apt_private "$suite" update 2>&1) || rc=$?
    echo "$out" | sed 's/^/    /'
    APT_ERROR=$(echo "$out" | grep -E '^(E|W): ' | head -n1)
    if echo "$out" | grep -qE '^(W|E): .*(GPG error|[Ss]ignature|NO_PUBKEY|EXPKEYSIG|not signed)'; then
        return 2 # signature verification failed
    fi
    if [ $rc -ne 0 ] || echo "$out" | grep -qE '^(W|E): .*Failed to fetch'; then
        return 1
    fi
    if ! ls "$d/lists/"*"_dists_${suite}_"*Packages* >/dev/null 2>&1; then
        APT_ERROR="no Packages index for $suite after apt-get update"
        return 1
    fi
}

# --- wrappers ---------------------------------------------------------------------------------

# Prints the version reported by wrapper $1 ("3.5a"), or fails.
wrapper_version() {
    local v
    [ -x "$1" ] || return 1
    v=$("$1" -V 2>/dev/null) || return 1
    case "$v" in
    "tmux "*) echo "${v#tmux }" ;;
    *) return 1 ;;
    esac
}

# The wrapper previously made for SUITE still works?
suite_done() {
    local stamp="$DEST/root-$1/.wrapper" w
    [ -f "$stamp" ] || return 1
    w=$(cat "$stamp")
    wrapper_version "$DEST/$w" >/dev/null
}

# install_wrapper SUITE BODY EXPECTED: writes a temporary wrapper with BODY (which may use
# $here, the wrapper's directory), asks it for -V and renames it to tmux-<version>.
install_wrapper() {
    local suite=$1 body=$2 expected=$3 tmp="$DEST/.wrapper-$1" v
    {
        echo '#!/bin/sh'
        echo "# tmux from Debian $suite, unpacked by .ci/fetch-tmux.sh"
        echo 'here=$(dirname "$(readlink -f "$0")")'
        echo "$body"
    } >"$tmp"
    chmod +x "$tmp"
    if ! v=$(wrapper_version "$tmp"); then
        warn "$expected" "the unpacked tmux from $suite does not run: $("$tmp" -V 2>&1 | head -n3)"
        rm -f "$tmp"
        return 1
    fi
    v=${v//[^A-Za-z0-9._-]/_}
    if [ "$v" != "$expected" ]; then
        echo "NOTE: $suite now has tmux $v (expected $expected); naming the wrapper tmux-$v"
    fi
    mv -f "$tmp" "$DEST/tmux-$v"
    echo "tmux-$v" >"$DEST/root-$suite/.wrapper"
    echo "created $DEST/tmux-$v"
}

# --- bookworm-backports: tmux 3.5a ------------------------------------------------------------

fetch_backports() {
    local suite="${CODENAME}-backports" root debs
    root="$DEST/root-$suite"
    if ! dpkg -s libjemalloc2 >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ]; then
            echo "+ apt-get install -y libjemalloc2"
            apt-get install -y -q libjemalloc2 || {
                apt-get update -q && apt-get install -y -q libjemalloc2
            } || echo "NOTE: could not install libjemalloc2" >&2
        else
            echo "NOTE: libjemalloc2 is not installed and we are not root" >&2
        fi
    fi
    if ! apt_update "$suite" "${ARCHIVE_KEYRING:+signed-by=$ARCHIVE_KEYRING}"; then
        warn 3.5a "apt-get update of $suite failed: $APT_ERROR"
        return 0
    fi
    rm -rf "$root" && mkdir -p "$root/debs"
    echo "+ apt-get download tmux/$suite"
    if ! (cd "$root/debs" && apt_private "$suite" download "tmux/$suite"); then
        warn 3.5a "apt-get download tmux/$suite failed"
        return 0
    fi
    for debs in "$root"/debs/*.deb; do
        dpkg -x "$debs" "$root" || {
            warn 3.5a "dpkg -x $debs failed"
            return 0
        }
    done
    install_wrapper "$suite" 'exec "$here/root-'"$suite"'/usr/bin/tmux" "$@"' 3.5a || {
        ldd "$root/usr/bin/tmux" 2>&1 | grep 'not found' >&2 || true
    }
}

# --- sid: tmux 3.8 with its own glibc ---------------------------------------------------------

fetch_sid() {
    local suite=sid root p pkgs=() lib
    root="$DEST/root-$suite"
    local rc=0
    apt_update "$suite" "${ARCHIVE_KEYRING:+signed-by=$ARCHIVE_KEYRING}" || rc=$?
    if [ $rc = 2 ]; then
        echo "NOTE: $suite could not be verified with the host keyring; retrying with trusted=yes" \
            "(packages are still checked against the Release file's hashes)"
        rc=0
        apt_update "$suite" "trusted=yes" || rc=$?
    fi
    if [ $rc != 0 ]; then
        warn 3.8 "apt-get update of $suite failed: $APT_ERROR"
        return 0
    fi
    for p in $SID_PACKAGES; do pkgs+=("$p/$suite"); done
    rm -rf "$root" && mkdir -p "$root/debs"
    echo "+ apt-get download ${pkgs[*]}"
    if ! (cd "$root/debs" && apt_private "$suite" download "${pkgs[@]}"); then
        warn 3.8 "apt-get download from $suite failed"
        return 0
    fi
    for p in "$root"/debs/*.deb; do
        dpkg -x "$p" "$root" || {
            warn 3.8 "dpkg -x $p failed"
            return 0
        }
    done
    lib=usr/lib/x86_64-linux-gnu
    install_wrapper "$suite" \
        'exec "$here/root-'"$suite"'/'"$lib"'/ld-linux-x86-64.so.2" --library-path "$here/root-'"$suite"'/'"$lib"'" "$here/root-'"$suite"'/usr/bin/tmux" "$@"' \
        3.8 || true
}

# --- main -------------------------------------------------------------------------------------

need=()
for suite in "${CODENAME:-bookworm}-backports" sid; do
    if suite_done "$suite"; then
        echo "tmux from $suite already present: $DEST/$(cat "$DEST/root-$suite/.wrapper")"
    else
        need+=("$suite")
    fi
done

if [ ${#need[@]} -gt 0 ]; then
    if [ "$(uname -m)" != x86_64 ]; then
        warn "3.5a/3.8" "only x86_64 is supported (this is $(uname -m))"
    elif ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
        warn "3.5a/3.8" "apt-get/dpkg not found"
    elif ! find_archive; then
        warn "3.5a/3.8" "could not derive the Debian archive from the host's apt sources"
    else
        for suite in "${need[@]}"; do
            case "$suite" in
            sid) fetch_sid ;;
            *) fetch_backports ;;
            esac
        done
        rm -rf "$APT_DIR" "$DEST"/root-*/debs
    fi
fi

echo "tmux versions in $DEST:"
for w in "$DEST"/tmux-*; do
    [ -x "$w" ] || continue
    echo "  $(basename "$w"): $("$w" -V 2>&1)"
done
exit 0
