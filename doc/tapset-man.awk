# tapset-man.awk - write tapir-functions(3) or tapir-probes(7) from the
# tapset library's doc comments and what tapir itself lists.
#
#   awk -v kind=functions|probes -v version=V -v list=FILES -v root=DIR \
#       -v funcs=F -v aliases=A -v types=T -v points=doc/probe-points \
#       -v head=HEAD -v tail=TAIL -f tapset-man.awk
#
# FILES holds the tapset files (every *.stp under the tapset root, one a
# line), F, A and T the output of tapir --dump-functions,
# --dump-probe-aliases and --dump-probe-types. The entries come from
# tapir's lists, so the page has every function, alias and probe point
# tapir knows; their text comes from the doc comments (the format is in
# tapsets/README.md). A file never seen before works: a function or alias
# without a doc comment is still listed, with the "//" comment right above
# it if there is one, and is marked with a troff comment
# '.\" undocumented: ...' that the man tier of the testsuite looks for.
# POSIX awk only (Debian's default is mawk).

function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}

function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}

function join_text(a, b) {
	if (a == "")
		return b
	if (b == "")
		return a
	return a " " b
}

# --- reading the tapset files ---------------------------------------------

# Parameter names of a declaration's "(a:long, b)" list, comma-separated.
function param_names(s,    n, i, p, out, parts) {
	if (!match(s, /\([^)]*\)/))
		return ""
	s = substr(s, RSTART + 1, RLENGTH - 2)
	n = split(s, parts, ",")
	out = ""
	for (i = 1; i <= n; i++) {
		p = trim(parts[i])
		sub(/:.*/, "", p)
		p = trim(p)
		if (p != "")
			out = out (out == "" ? "" : ",") p
	}
	return out
}

# Store the comment text (lines without their " * ") under key.
function parse_doc(key, text, file, line,    n, i, l, lines, cur, tag, name, m) {
	d_file[key] = file
	d_line[key] = line
	d_sum[key] = ""; d_desc[key] = ""; d_nargs[key] = 0
	d_ret[key] = ""; d_err[key] = ""; d_since[key] = ""; d_ctx[key] = ""
	d_doc[key] = text != ""
	n = split(text, lines, "\n")
	cur = ""
	for (i = 1; i <= n; i++) {
		l = lines[i]
		if (trim(l) == "") {
			if (cur == "sum" || cur == "desc")
				d_desc[key] = d_desc[key] (d_desc[key] == "" ? "" : "\n")
			cur = cur == "" ? "" : "gap"
			continue
		}
		l = trim(l)
		if (cur == "" && d_sum[key] == "" && d_desc[key] == "" &&
		    match(l, /^((function|probe)[ \t]+)?[A-Za-z_][A-Za-z0-9_.*]*[ \t]+-[ \t]/)) {
			m = substr(l, 1, RLENGTH)
			d_sum[key] = trim(substr(l, RLENGTH + 1))
			cur = "sum"
			continue
		}
		if (match(l, /^@[A-Za-z_][A-Za-z0-9_]*:/)) {
			name = substr(l, 2, RLENGTH - 2)
			m = ++d_nargs[key]
			d_argn[key, m] = name
			d_argt[key, m] = trim(substr(l, RLENGTH + 1))
			cur = "arg"
			continue
		}
		if (match(l, /^(Returns|Return|Error|Errors|Since|Context|Description):/)) {
			tag = substr(l, 1, RLENGTH - 1)
			l = trim(substr(l, RLENGTH + 1))
			if (tag == "Returns" || tag == "Return")
				cur = "ret"
			else if (tag == "Error" || tag == "Errors")
				cur = "err"
			else if (tag == "Since")
				cur = "since"
			else if (tag == "Context")
				cur = "ctx"
			else
				cur = "desc"
			if (cur == "desc" && d_desc[key] != "")
				d_desc[key] = d_desc[key] "\n"
			if (l == "")
				continue
		}
		if (cur == "sum")
			d_sum[key] = join_text(d_sum[key], l)
		else if (cur == "arg")
			d_argt[key, d_nargs[key]] = join_text(d_argt[key, d_nargs[key]], l)
		else if (cur == "ret")
			d_ret[key] = join_text(d_ret[key], l)
		else if (cur == "err")
			d_err[key] = join_text(d_err[key], l)
		else if (cur == "since")
			d_since[key] = join_text(d_since[key], l)
		else if (cur == "ctx")
			d_ctx[key] = join_text(d_ctx[key], l)
		else {
			# free text: a paragraph of the description
			if (cur != "desc" && d_desc[key] != "" && d_desc[key] !~ /\n$/)
				d_desc[key] = d_desc[key] "\n"
			if (d_desc[key] == "" || d_desc[key] ~ /\n$/)
				d_desc[key] = d_desc[key] l
			else
				d_desc[key] = d_desc[key] " " l
			cur = "desc"
		}
	}
	sub(/\n+$/, "", d_desc[key])
	sub(/^\n+/, "", d_desc[key])
}

# Variables an alias body sets at its top level, from the lines of the
# body (strings and comments removed); depth is the brace depth so far.
function alias_vars(names, s,    n, i, j, seg, c, parts, k, v) {
	gsub(/"([^"\\]|\\.)*"/, "\"\"", s)
	sub(/\/\/.*/, "", s)
	sub(/#.*/, "", s)
	seg = ""
	for (i = 1; i <= length(s) + 1; i++) {
		c = i <= length(s) ? substr(s, i, 1) : "}"
		if (c == "{" || c == "}") {
			if (adepth == 1) {
				k = split(seg, parts, ";")
				for (j = 1; j <= k; j++)
					if (match(parts[j], /^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*=/) &&
					    substr(parts[j], RLENGTH + 1, 1) !~ /[=~]/) {
						v = trim(substr(parts[j], 1, RLENGTH - 1))
						if (!((names, v) in seen_var)) {
							seen_var[names, v] = 1
							a_vars[names] = a_vars[names] (a_vars[names] == "" ? "" : " ") v
						}
					}
			}
			seg = ""
			if (i <= length(s))
				adepth += c == "{" ? 1 : -1
			continue
		}
		seg = seg c
	}
	return adepth
}

function scan(file, rel,    line, lnum, inc, indoc, doc, pending, lc, rest, name,
	      key, nnames, names, i, body, alias_names, started, doc_line) {
	inc = 0; indoc = 0; pending = 0; lc = ""; body = ""; lnum = 0
	while ((getline line < file) > 0) {
		lnum++
		if (body != "") {
			# inside an alias body: collect the variables it sets
			if (alias_vars(body, line) <= 0 && started) {
				body = ""
				continue
			}
			if (line ~ /{/)
				started = 1
			continue
		}
		if (inc) {
			if (line ~ /%}/)
				inc = 0
			continue
		}
		if (indoc) {
			if (line ~ /\*\//) {
				sub(/\*\/.*/, "", line)
				indoc = 0
				pending = 1
			}
			sub(/^[ \t]*\*?[ \t]?/, "", line)
			doc = doc line "\n"
			continue
		}
		if (line ~ /^\/\*\*/ && line !~ /^\/\*\*\//) {
			rest = line
			sub(/^\/\*\*[ \t]*/, "", rest)
			doc = ""
			doc_line = lnum
			if (rest ~ /\*\//) {
				sub(/[ \t]*\*\/.*/, "", rest)
				doc = rest "\n"
				pending = 1
			} else {
				doc = rest == "" ? "" : rest "\n"
				indoc = 1
			}
			continue
		}
		if (line ~ /^[ \t]*(\/\/|#)/) {
			rest = line
			sub(/^[ \t]*(\/\/|#)[ \t]?/, "", rest)
			lc = lc rest "\n"
			continue
		}
		if (trim(line) == "") {
			lc = ""
			continue
		}
		if (match(line, /^[ \t]*(private[ \t]+)?function[ \t]+[A-Za-z_][A-Za-z0-9_]*/)) {
			name = substr(line, RSTART, RLENGTH)
			sub(/^[ \t]*(private[ \t]+)?function[ \t]+/, "", name)
			key = name "(" param_names(line) ")"
			if (!(key in d_file))
				parse_doc(key, pending ? doc : lc, rel, lnum)
		} else if (match(line, /^[ \t]*probe[ \t]+[^={]*\+?=/)) {
			rest = substr(line, RSTART, RLENGTH)
			sub(/^[ \t]*probe[ \t]+/, "", rest)
			sub(/\+?=$/, "", rest)
			nnames = split(rest, names, ",")
			alias_names = ""
			for (i = 1; i <= nnames; i++) {
				key = "probe " trim(names[i])
				alias_names = alias_names (i > 1 ? SUBSEP : "") key
				if (!(key in d_file))
					parse_doc(key, pending ? doc : lc, rel, lnum)
			}
			# the body: from the first '{' of this line on
			body = alias_names
			adepth = 0
			rest = line
			sub(/^[^{]*/, "", rest)
			started = rest != ""
			if (alias_vars(body, rest) <= 0 && started)
				body = ""
		}
		if (line ~ /%{/ && line !~ /%{.*%}/)
			inc = 1
		pending = 0
		lc = ""
	}
	close(file)
}

# An alias's variables are kept under the names of all the aliases its
# declaration defines, joined with SUBSEP: look one name up.
function vars_of(key,    k, n, parts, i) {
	for (k in a_vars) {
		n = split(k, parts, SUBSEP)
		for (i = 1; i <= n; i++)
			if (parts[i] == key)
				return a_vars[k]
	}
	return ""
}

# --- writing troff ---------------------------------------------------------

function paragraphs(text,    n, i, p) {
	n = split(text, p, "\n")
	for (i = 1; i <= n; i++)
		if (trim(p[i]) != "")
			print ".IP\n" esc(p[i])
}

function doc_body(key, params, nparams,    i, j, found, any, para, bare) {
	if (d_sum[key] != "")
		print esc(d_sum[key])
	else if (d_desc[key] == "")
		print "Not documented."
	if (d_desc[key] != "") {
		if (d_sum[key] == "") {
			split(d_desc[key], para, "\n")
			print esc(para[1])
			sub(/^[^\n]*\n?/, "", d_desc[key])
		}
		paragraphs(d_desc[key])
	}
	# arguments: the declared ones in order, then other documented names
	# an alias's variables without text go in one "Also sets" line
	any = d_nargs[key] > 0 || (nparams > 0 && !alias_entry)
	if (!any)
		for (i = 1; i <= nparams; i++)
			bare = bare (bare == "" ? "" : ", ") "\\fI" esc(params[i]) "\\fP"
	if (any) {
		print ".RS"
		for (i = 1; i <= nparams; i++) {
			found = ""
			for (j = 1; j <= d_nargs[key]; j++)
				if (d_argn[key, j] == params[i])
					found = d_argt[key, j]
			if (found == "" && alias_entry) {
				bare = bare (bare == "" ? "" : ", ") "\\fI" esc(params[i]) "\\fP"
				continue
			}
			print ".TP"
			print ".I " esc(params[i])
			print found == "" ? (ptype[i] != "" ? "(" ptype[i] ")" : "\\&") : esc(found)
		}
		for (j = 1; j <= d_nargs[key]; j++) {
			found = 0
			for (i = 1; i <= nparams; i++)
				if (d_argn[key, j] == params[i])
					found = 1
			if (!found) {
				print ".TP"
				print ".I " esc(d_argn[key, j])
				print esc(d_argt[key, j])
			}
		}
		print ".RE"
	}
	if (bare != "")
		print ".IP\nAlso sets " bare "."
	if (d_ret[key] != "")
		print ".IP\n.B Returns:\n" esc(d_ret[key])
	if (d_err[key] != "")
		print ".IP\n.B Error:\n" esc(d_err[key])
	if (d_ctx[key] != "")
		print ".IP\n.B Context:\n" esc(d_ctx[key])
	if (d_since[key] != "")
		print ".IP\n.B Since:\n" esc(d_since[key])
}

function copy(file,    line) {
	while ((getline line < file) > 0) {
		gsub(/@VERSION@/, version, line)
		print line
	}
	close(file)
}

function functions_page(    line, n, i, name, rtype, plist, parts, key, nf, order,
			   files, nfiles, f, fkey, j, sig, np) {
	nf = 0
	while ((getline line < funcs) > 0) {
		if (!match(line, /^[A-Za-z_][A-Za-z0-9_]*:[a-z]* \(/))
			continue
		nf++
		fline[nf] = line
	}
	close(funcs)
	copy(head)
	# group by file, in the order of the file list; unknown files last
	nfiles = 0
	for (i = 1; i <= nf; i++) {
		line = fline[i]
		name = line; sub(/:.*/, "", name)
		plist = line; sub(/^[^(]*\(/, "", plist); sub(/\)$/, "", plist)
		np = split(plist, parts, ", ")
		key = ""
		for (j = 1; j <= np; j++) {
			sub(/:.*/, "", parts[j])
			key = key (j > 1 ? "," : "") parts[j]
		}
		key = name "(" key ")"
		fkey[i] = key
		f = key in d_file ? d_file[key] : "(not found in any tapset file)"
		fileof[i] = f
		if (!(f in fseen)) {
			fseen[f] = ++nfiles
			files[nfiles] = f
		}
	}
	# files in list order (the list is sorted)
	for (j = 1; j <= nlist; j++)
		if (rels[j] in fseen)
			forder[++no] = rels[j]
	for (j = 1; j <= nfiles; j++)
		if (!(files[j] in inlist))
			forder[++no] = files[j]
	print ".SH FUNCTIONS"
	for (j = 1; j <= no; j++) {
		f = forder[j]
		print ".SS " esc(f)
		if (f in intro)
			print esc(intro[f])
		for (i = 1; i <= nf; i++) {
			if (fileof[i] != f)
				continue
			line = fline[i]
			name = line; sub(/:.*/, "", name)
			rtype = line; sub(/^[^:]*:/, "", rtype); sub(/ .*/, "", rtype)
			plist = line; sub(/^[^(]*\(/, "", plist); sub(/\)$/, "", plist)
			np = plist == "" ? 0 : split(plist, parts, ", ")
			sig = "\\fB" esc(name) "\\fP" (rtype == "unknown" ? "" : ":" rtype) " ("
			for (n = 1; n <= np; n++) {
				ptype[n] = parts[n]; sub(/^[^:]*:?/, "", ptype[n])
				if (ptype[n] == "unknown")
					ptype[n] = ""
				sub(/:.*/, "", parts[n])
				sig = sig (n > 1 ? ", " : "") "\\fI" esc(parts[n]) "\\fP" \
				      (ptype[n] == "" ? "" : ":" ptype[n])
			}
			sig = sig ")"
			key = fkey[i]
			if (!(key in d_doc) || !d_doc[key])
				print ".\\\" undocumented: " line
			print ".\\\" function: " line
			print ".TP\n" sig
			doc_body(key, parts, np)
		}
	}
}

function probes_page(    line, n, i, j, k, fam, pat, lastfam, np, blk, nb, text,
			 name, key, na, nf, f, head_done) {
	# the probe point descriptions: "== FAMILY" opens a family's text,
	# ": PATTERN" lines open a block of points sharing one text
	nb = 0
	state = ""
	while ((getline line < points) > 0) {
		if (line ~ /^#/)
			continue
		if (line ~ /^== /) {
			curfam = substr(line, 4)
			state = "fam"
			continue
		}
		if (line ~ /^: /) {
			if (state != "pats")
				nb++
			state = "pats"
			pat = substr(line, 3)
			pblock[pat] = nb
			bpats[nb] = bpats[nb] (bpats[nb] == "" ? "" : "\n") pat
			continue
		}
		if (state == "fam")
			famtext[curfam] = famtext[curfam] line "\n"
		else if (state != "") {
			state = "text"
			btext[nb] = btext[nb] line "\n"
		}
	}
	close(points)
	copy(head)
	print ".SH PROBE POINTS"
	lastfam = ""
	while ((getline line < types) > 0) {
		if (line == "")
			continue
		fam = line
		sub(/[.(].*/, "", fam)
		if (fam != lastfam) {
			print ".SS " esc(fam)
			if (fam in famtext)
				printf "%s", famtext[fam]
			famdone[fam] = 1
			lastfam = fam
		}
		if (!(line in pblock)) {
			print ".\\\" undocumented: " line
			print ".\\\" point: " line
			print ".TP\n.B " esc(line) "\nNot documented."
			continue
		}
		print ".\\\" point: " line
		blk = pblock[line]
		if (blk in bdone)
			continue
		bdone[blk] = 1
		n = split(bpats[blk], pl, "\n")
		print ".TP"
		k = 0
		for (i = 1; i <= n; i++) {
			print (k++ ? ".TQ\n" : "") ".B " esc(pl[i])
		}
		printf "%s", btext[blk]
	}
	close(types)
	print ".SH PROBE ALIASES"
	# read them all, then write them grouped by file, in list order
	na = 0
	while ((getline line < aliases) > 0)
		if (line != "")
			aline[++na] = line
	close(aliases)
	for (i = 1; i <= na; i++) {
		name = aline[i]; sub(/ \+?= .*/, "", name)
		aname[i] = name
		isalias[name] = 1
		key = "probe " name
		afile[i] = key in d_file ? d_file[key] : "(not found in any tapset file)"
	}
	nf = 0
	for (j = 1; j <= nlist; j++)
		forder[++nf] = rels[j]
	forder[++nf] = "(not found in any tapset file)"
	for (j = 1; j <= nf; j++) {
		f = forder[j]
		head_done = 0
		for (i = 1; i <= na; i++) {
			if (afile[i] != f)
				continue
			if (!head_done) {
				print ".SS " esc(f)
				if (f in intro)
					print esc(intro[f])
				head_done = 1
			}
			alias_entry_out(aline[i], aname[i])
		}
	}
	if (na == 0)
		print "The tapset library defines no probe aliases yet."
}

# One alias: NAME = POINTS (as --dump-probe-aliases prints it).
function alias_entry_out(line, name,    rest, key, nv, vars, np, i, params) {
	rest = line; sub(/^[^=]*= /, "", rest)
	key = "probe " name
	if (!(key in d_doc) || !d_doc[key])
		print ".\\\" undocumented: alias " name
	print ".\\\" alias: " name
	print ".TP\n.B " esc(name)
	# the variables: documented ones, then the others the body sets
	# (names starting with _ are the library's own)
	nv = split(vars_of(key), vars, " ")
	np = 0
	for (i = 1; i <= nv; i++)
		if (vars[i] !~ /^_/)
			params[++np] = vars[i]
	alias_entry = 1
	doc_body(key, params, np)
	alias_entry = 0
	if (rest in isalias && np == 0)
		print ".IP\nIts variables are those of \\fB" esc(rest) "\\fP."
	# left-adjusted: a list of long probe points cannot be justified
	print ".IP\n.ad l\n\\fB" (line ~ / \+= / ? "+=" : "=") "\\fP " esc(rest) "\n.ad"
}

BEGIN {
	nlist = 0
	while ((getline f < list) > 0) {
		rel = f
		if (index(rel, root "/") == 1)
			rel = substr(rel, length(root) + 2)
		rels[++nlist] = rel
		inlist[rel] = 1
		# the first paragraph of the file's opening "//" block, without
		# its "NAME - ", introduces the file's section
		first = ""
		while ((getline l < f) > 0 && l ~ /^\/\/ ./) {
			sub(/^\/\/ /, "", l)
			first = join_text(first, trim(l))
		}
		sub(/^[A-Za-z0-9_.\/-]+(\.stp)?:? +(- +)?/, "", first)
		if (first != "")
			intro[rel] = first
		close(f)
		scan(f, rel)
	}
	close(list)
	if (kind == "functions")
		functions_page()
	else
		probes_page()
	copy(tail)
	exit 0
}
