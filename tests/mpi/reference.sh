# The references: tiny.ini and interrupt.ini run uninterrupted by one process without mpirun.
source "$(dirname "$0")/lib.sh" "$@"
for config in tiny interrupt; do
  rm -f "$config.h5"
  run 0 "$HERE/$config.ini" --output "$config.h5" --progress 60 || fail "reference run $config"
  dump "$config.h5" >"$config.txt" || fail "reference dump $config"
  dump "$config.h5" --config >"$config.config.txt"
  grep -q "^done \([0-9]*\) of \1$" "$config.txt" || fail "$config: not every task done"
done
echo "references: $(wc -l <tiny.txt) and $(wc -l <interrupt.txt) lines"
