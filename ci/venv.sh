# Sourced by the CI scripts that test in a venv. `venv_at DIR`: python3
# with its venv module (Debian and Ubuntu ship venv's ensurepip apart, in
# python3-venv, installed here where it is missing), and a venv at DIR,
# made anew where DIR has none whose pip runs.
venv_at() {
    if ! command -v python3 >/dev/null || ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-venv
    fi
    if ! "$1/bin/python" -c 'import pip' 2>/dev/null; then
        rm -rf "$1"
        python3 -m venv "$1"
    fi
}
