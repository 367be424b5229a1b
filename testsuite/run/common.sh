# testsuite/run/common.sh: sourced by run-tier and oracle.sh. Reads the
# options of a case and builds the guest job that runs its module; the
# kernel to build for and boot comes from ../kernel.sh (TAPIR_KERNEL).
#
# A case is NAME.stp with optional NAME.opts (shell words) and NAME.args
# (the script's $1 @1 ...). The words of NAME.opts are sorted into:
#   translator options (TOPTS): -D -g -B -I -u -w and anything else;
#   loader options (LOPTS): -c CMD, -x PID, -o FILE (given to staprun or
#       tapir-run in the guest, not to the translator; the job prints FILE
#       after the run, then each FILE.N after a line "== FILE.N"),
#       --json (tapir-run's alone: such cases are hand-written.txt's);
#   -G var=val goes to both: to the translator (TOPTS, as stap and tapir
#       accept it) and as var=val after the module on the loader's
#       command line (LVARS), which is how stap hands it on to staprun.
# NAME.stdin (optional): one line, a printf(1) format whose output is the
# loader's standard input (input.char, input.line), e.g. ab\ncd\n.

. "$(dirname "${BASH_SOURCE[0]}")/../kernel.sh"

words() {	# words FILE: the shell words in FILE into the array W
	W=()
	[ -f "$1" ] || return 0
	eval "W=($(<"$1"))"
}

modname() {	# modname NAME: a module name (letters, digits, _) for NAME
	local m=${1//-/_}
	echo "${m//./_}"
}

split_opts() {	# split_opts BASE: TOPTS LOPTS LVARS ARGS OUTFILE from BASE.opts/.args
	local i=0 w
	TOPTS=() LOPTS=() LVARS=() OUTFILE= STDIN=
	[ -f "$1.stdin" ] && STDIN=$(head -n 1 "$1.stdin")
	words "$1.opts"
	while [ $i -lt ${#W[@]} ]; do
		w=${W[$i]}
		case $w in
		--json)	# (tapir-run's: there is no stap --json)
			LOPTS+=("$w") ;;
		-c|-x|-o)
			LOPTS+=("$w" "${W[$((i + 1))]}")
			[ "$w" = -o ] && OUTFILE=${W[$((i + 1))]}
			i=$((i + 2)); continue ;;
		-G)
			TOPTS+=(-G "${W[$((i + 1))]}")
			LVARS+=("${W[$((i + 1))]}")
			i=$((i + 2)); continue ;;
		-G*)
			TOPTS+=("$w")
			LVARS+=("${w#-G}") ;;
		*)	TOPTS+=("$w") ;;
		esac
		i=$((i + 1))
	done
	words "$1.args"; ARGS=("${W[@]}")
}

shquote() {	# shquote WORD: WORD quoted for the guest's sh
	local s=${1//\'/\'\\\'\'}
	printf "'%s'" "$s"
}

guest_job() {	# guest_job LOADER KO: the job line for the case last split
	local j w
	j=$1
	[ -n "$STDIN" ] && j="printf $(shquote "$STDIN") | $j"
	for w in "${LOPTS[@]}"; do j+=" $(shquote "$w")"; done
	j+=" $2"
	for w in "${LVARS[@]}"; do j+=" $(shquote "$w")"; done
	# With -o the output goes to a file: show it after the run, so it is
	# compared like stdout; then the next files (switch_file()), each
	# after a line "== NAME".
	[ -n "$OUTFILE" ] && j+="; s=\$?; cat $(shquote "$OUTFILE"); for f in $(shquote "$OUTFILE").*; do [ -f \"\$f\" ] && echo \"== \${f##*/}\" && cat \"\$f\"; done; exit \$s"
	echo "$j"
}
