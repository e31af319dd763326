#!/bin/sh
# Debian packages the tests need: chromium (browser tests), postfix (the mail server
# tests run a private instance of their own), systemd's systemd-analyze (the example
# units in config/systemd/ are verified with it) and a running PostgreSQL at 127.0.0.1:5432
# with a database "test" and trust auth. Installs only what is missing.
# With the argument "venv", only Python's venv module; with "postfix", only postfix.
set -eu

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "Please run as root (or install sudo): $*" >&2; exit 1
    fi
}

updated=""
apt_install() {
    if [ -z "$updated" ]; then as_root apt-get update -q; updated=1; fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
}

if [ "${1:-}" = venv ]; then apt_install python3-venv; exit 0; fi

install_postfix() {
    if command -v postconf >/dev/null 2>&1 || [ -x /usr/sbin/postconf ]; then return 0; fi
    echo "Installing Debian's postfix for the mail server tests (no system-wide instance)..."
    # "No configuration": the package writes no main.cf and starts nothing on port 25;
    # the tests start their own instance on a loopback port. A policy-rc.d for the
    # install keeps any init script from starting one anyway.
    echo "postfix postfix/main_mailer_type select No configuration" \
        | as_root debconf-set-selections
    policy=/usr/sbin/policy-rc.d
    if [ -e "$policy" ]; then apt_install postfix; return; fi
    as_root sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod 755 $policy"
    apt_install postfix || { as_root rm -f "$policy"; exit 1; }
    as_root rm -f "$policy"
}
if [ "${1:-}" = postfix ]; then install_postfix; exit 0; fi

if ! command -v chromium >/dev/null 2>&1; then
    echo "Installing Debian's chromium for the browser tests..."
    apt_install chromium fonts-dejavu-core
fi

install_postfix

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "Installing Debian's systemd for systemd-analyze (the example units' test)..."
    apt_install systemd
fi

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
if ! pg_up; then
    if ! command -v pg_ctlcluster >/dev/null 2>&1; then
        echo "Installing PostgreSQL for the store's contract tests..."
        apt_install postgresql
    fi
    version=$(ls /etc/postgresql | sort -n | tail -1)
    hba=/etc/postgresql/$version/main/pg_hba.conf
    if ! grep -q "pbem-tests" "$hba"; then
        as_root sh -c "printf '%s\n' '# pbem-tests: trust on loopback' \
            'host all all 127.0.0.1/32 trust' 'host all all ::1/128 trust' \
            | cat - '$hba' > '$hba.new' && mv '$hba.new' '$hba'"
    fi
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do pg_up && break; sleep 1; done
    if ! psql -h 127.0.0.1 -U postgres -lqt 2>/dev/null | cut -d'|' -f1 | grep -qw test; then
        psql -h 127.0.0.1 -U postgres -c 'CREATE DATABASE test' >/dev/null || true
    fi
fi
