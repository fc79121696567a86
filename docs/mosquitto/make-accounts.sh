#!/bin/sh
# Make an event's broker accounts: a random password for the scoreboard and for tables 1..N.
#   sh docs/mosquitto/make-accounts.sh 40 accounts
# writes accounts/companion.passwd (hashed, for the broker), accounts/scoreboard.pw and
# accounts/table-<n>.pw (one per device), every file readable by you alone. No password is ever
# on a command line (printf is a shell builtin; openssl writes into a pipe) or in a file others can
# read; mosquitto_passwd -U hashes the user:password lines in place. Then see docs/event.md.
set -eu
tables=${1:?how many tables}
out=${2:?the folder to write the accounts into}
umask 077
mkdir -p "$out"
passwd="$out/companion.passwd"
: > "$passwd"
account() {  # name, password file
    password=$(openssl rand -hex 12)
    printf '%s\n' "$password" > "$2"
    printf '%s:%s\n' "$1" "$password" >> "$passwd"
}
account scoreboard "$out/scoreboard.pw"
n=1
while [ "$n" -le "$tables" ]; do
    account "$n" "$out/table-$n.pw"
    n=$((n + 1))
done
mosquitto_passwd -U "$passwd"
echo "$out: companion.passwd (hashed), scoreboard.pw and table-1.pw ... table-$tables.pw"
