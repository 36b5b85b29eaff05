#!/bin/sh
# rtl:outlis_buffer:lint: `verilator --lint-only -Wall --assert` over outlis_buffer.sv once per
# argument after the first (a set of -G/-D options); any warning fails. See README.md.
# Usage: lint.sh VERILATOR OPTIONS...
set -e
verilator=$1
shift
cd "$(dirname "$0")"
for options in "$@"; do
    echo "verilator --lint-only -Wall --assert $options outlis_buffer.sv"
    # shellcheck disable=SC2086 # the options are words
    "$verilator" --lint-only -Wall --assert $options outlis_buffer.sv
done
echo "lint clean"
