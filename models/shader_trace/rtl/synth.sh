#!/bin/sh
# rtl:outlis_buffer:synth: yosys' generic `synth -top outlis_buffer` at SLOTS and SOURCES; prints
# the cells, the flip-flops and the longest path (logic levels between registers and ports,
# `ltp -noff`) and, given the README, checks that it states these figures. See README.md.
# Usage: synth.sh YOSYS SLOTS SOURCES [README]
set -e
yosys=$1
slots=$2
sources=$3
readme=$4
here=$(cd "$(dirname "$0")" && pwd)
"$yosys" -q -l synth.log -p "read_verilog -sv $here/outlis_buffer.sv;
    chparam -set SLOTS $slots -set SOURCES $sources outlis_buffer;
    synth -top outlis_buffer; tee -q -o synth_stat.txt stat; tee -q -o synth_ltp.txt ltp -noff" \
    >/dev/null
cells=$(sed -n 's/^ *Number of cells: *\([0-9]*\)$/\1/p' synth_stat.txt | tail -n 1)
ffs=$(awk '$1 ~ /^\$_(S?DFF|DFFE|SDFFE|SDFFCE)/ { n += $2 } END { print n + 0 }' synth_stat.txt)
depth=$(sed -n 's/^Longest topological path in .* (length=\([0-9]*\)).*$/\1/p' synth_ltp.txt)
if [ -z "$cells" ] || [ -z "$depth" ]; then
    echo "synth: no cell count or longest path in yosys' output" >&2
    exit 1
fi
line="SLOTS=$slots SOURCES=$sources: $cells cells ($ffs flip-flops), longest path $depth"
echo "outlis_buffer $line"
if [ -n "$readme" ] && ! grep -qF "$line" "$readme"; then
    echo "synth: $readme does not state \"$line\" (update its synthesis figures)" >&2
    exit 1
fi
