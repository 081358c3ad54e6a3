# Shared by scripts/tutor and scripts/test (sourced, not run): make ./.venv ready.
#
# Idempotent: a second run checks and skips. Torch first, the tested version (TORCH_VERSION)
# built for this host: with an NVIDIA driver (nvidia-smi) the default index's build; without
# one, the default index's build only if it pulls no CUDA libraries (a CPU wheel), else the
# CPU build from download.pytorch.org (short timeouts, so an unreachable index fails in
# seconds). Then quiztutor itself, whose torch requirement that torch already satisfies, so
# pip downloads no other.

TORCH_VERSION="2.13.0"
CPU_INDEX="https://download.pytorch.org/whl/cpu"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${QUIZTUTOR_VENV:-$ROOT/.venv}"

say() { printf 'setup: %s\n' "$*" >&2; }
die() {
    printf 'error: %s\n' "$1" >&2
    [ -n "${2:-}" ] && printf 'fix: %s\n' "$2" >&2
    exit 1
}

find_python() {
    local candidate
    for candidate in python3.13 python3.12 python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 \
            && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

make_venv() {
    [ -x "$VENV/bin/python" ] && return 0
    local python
    python="$(find_python)" || die "Python 3.11 or newer was not found" \
        "install it (Debian/Ubuntu: sudo apt-get install python3.11 python3.11-venv)"
    say "creating $VENV with $("$python" --version)"
    # System packages stay visible: a torch the host already has is used, not downloaded.
    "$python" -m venv --system-site-packages "$VENV" \
        || die "could not create $VENV" "install the venv module (Debian/Ubuntu: sudo apt-get install python3-venv)"
}

torch_ready() {
    "$VENV/bin/python" -c "import sys, torch; sys.exit(torch.__version__.split('+')[0] != '$TORCH_VERSION')" \
        2>/dev/null
}

# Would the default index's torch pull CUDA libraries? (pip resolves from metadata only.)
default_torch_is_cuda() {
    local report
    report="$(mktemp)"
    "$VENV/bin/pip" install --dry-run --quiet --ignore-installed --report "$report" \
        "torch==$TORCH_VERSION" >/dev/null 2>&1 || { rm -f "$report"; return 2; }
    "$VENV/bin/python" - "$report" <<'PY'
import json
import sys

names = [i["metadata"]["name"].lower() for i in json.load(open(sys.argv[1]))["install"]]
sys.exit(0 if any(n.startswith("nvidia-") for n in names) else 1)
PY
    local cuda=$?
    rm -f "$report"
    return $cuda
}

has_nvidia_driver() { command -v nvidia-smi >/dev/null 2>&1; }

install_torch() {
    torch_ready && return 0
    if has_nvidia_driver; then
        say "NVIDIA driver found: installing torch $TORCH_VERSION (CUDA build, several GB)"
        "$VENV/bin/pip" install "torch==$TORCH_VERSION" || die "torch did not install" \
            "check the network, then run this again"
        return 0
    fi
    local cuda=0
    default_torch_is_cuda || cuda=$?
    if [ "$cuda" = 1 ]; then
        say "no NVIDIA driver; the package index has a CPU build: installing torch $TORCH_VERSION"
        "$VENV/bin/pip" install "torch==$TORCH_VERSION" || die "torch did not install" \
            "check the network, then run this again"
        return 0
    fi
    say "no NVIDIA driver: installing torch $TORCH_VERSION, CPU build, from $CPU_INDEX"
    "$VENV/bin/pip" install --timeout 15 --retries 1 "torch==$TORCH_VERSION" --index-url "$CPU_INDEX" \
        || die "$CPU_INDEX could not be reached" \
            "check the network, or install torch==$TORCH_VERSION into $VENV yourself, then run this again"
}

# quiztutor and its dependencies, again only when pyproject.toml changed (or new extras).
install_quiztutor() {
    local extras="$1" stamp want done
    stamp="$VENV/.quiztutor-installed${extras:+-$extras}"
    want="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1)"
    for done in "$stamp" "$VENV/.quiztutor-installed-dev"; do  # [dev] includes the rest
        if [ -f "$done" ] && [ "$(cat "$done")" = "$want" ]; then
            return 0
        fi
    done
    say "installing quiztutor${extras:+[$extras]} and its dependencies"
    (cd "$ROOT" && "$VENV/bin/pip" install --quiet -e ".${extras:+[$extras]}") \
        || die "quiztutor did not install" "check the network, then run this again"
    torch_ready || die "installing quiztutor replaced torch $TORCH_VERSION" \
        "report this; meanwhile pip install torch==$TORCH_VERSION into $VENV"
    echo "$want" >"$stamp"
}

setup_quiztutor() {
    make_venv
    install_torch
    install_quiztutor "${1:-}"
}
