# process(PID).function(...) is named by the program's path, as stap 4.8
# names it in -l and -p2 (pp() and the point it derives from): here a
# bash subshell, whose exe is /usr/bin/bash
( sleep 30; : ) &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
for i in $(seq 50); do
	[ "$(readlink /proc/$pid/exe)" = /usr/bin/bash ] && break
	sleep 0.1
done
"$TAPIR" -r "$RELEASE" -l "process($pid).function(\"main\")"
"$TAPIR" -r "$RELEASE" -p2 -e "probe process($pid).function(\"main\") { println(pp()) }" |
	sed -n '/^# probes/,/^#/p' | sed '/^# [a-oq-z]/d'
