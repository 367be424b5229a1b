/* gen.c - write a large SystemTap-language script for the parser bench.
 *
 * Usage: gen LINES > big.stp
 * The output repeats a block that uses every construct of the language
 * (probe point forms, aliases, globals, overloaded functions, every
 * statement and expression kind, foreach forms, macros, preprocessor
 * conditionals, embedded C, so it needs -g) with "@@" in the template
 * replaced by the block number, until at least LINES lines were written.
 * The output is deterministic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char block[] =
"# ---- block @@ ----\n"
"@define SQ_@@(x) %( ((@x) * (@x)) %)\n"
"@define LIM_@@ %( 10 %)\n"
"global count_@@, bytes_@@[1000], lat_@@, name_@@ = \"blk@@\", limit_@@ = 100\n"
"global ring_@@%[16], pair_@@\n"
"private global hidden_@@ = -1\n"
"%{\n"
"#include <linux/sched.h>\n"
"#define BLK_@@ @@\n"
"%}\n"
"\n"
"/* Overloads by arity, typed and untyped, with a priority. */\n"
"function add_@@:long (a:long, b:long) { return a + b }\n"
"function add_@@ (a, b, c) { return a + b + c }\n"
"function pick_@@:string (n:long) :2\n"
"{\n"
"  if (n < 0) next\n"
"  return n % 2 ? \"odd\" : \"even\"\n"
"}\n"
"function pick_@@:string (n:long) :3 { return \"neg\" }\n"
"function raw_@@:long (v:long) %{ /* pure */ STAP_RETVALUE = STAP_ARG_v + BLK_@@; %}\n"
"function fmt_@@:string (k, v)\n"
"{\n"
"  s = sprintf(\"%-8s|%5d|%#x|%08o|%+d|% d|%c|%3.2s|%*d|%p|%%\",\n"
"              k, v, v, v, v, v, 65, k, 6, v, v)\n"
"  return s . \" \" . sprint(v) . sprintd(\",\", k, v) . sprintln(v)\n"
"}\n"
"\n"
"probe tap_@@.read = kprobe.function(\"vfs_read\") { fd = int_arg(1); size = ulong_arg(3) }\n"
"probe tap_@@.write += kprobe.function(\"vfs_write\").return { ret = $return }\n"
"probe tap_@@.both = kernel.function(\"vfs_{read,write}@fs/read_write.c\").call { n = 1 }, { n++ }\n"
"\n"
"probe begin, begin(-@@), end(@@), error, never\n"
"{\n"
"  count_@@ = @SQ_@@(3) + @LIM_@@ * 0x1f - 017 + ~1 + -(-2) + +4 + !0\n"
"  name_@@ .= \"a\" \"b\\n\\t\\\"\\\\\\x41\\101\"\n"
"  count_@@ += 1; count_@@ -= 1; count_@@ *= 2; count_@@ /= 2; count_@@ %= 7\n"
"  count_@@ <<= 2; count_@@ >>= 1; count_@@ &= 0xff; count_@@ |= 1; count_@@ ^= 3\n"
"  x = count_@@ << 2 >> 1 >>> 1 | 1 & 3 ^ 5\n"
"  y = (x > 1 && x < 9) || (x >= 2 && x <= 8) || x == 3 || x != 4\n"
"  z = y ? x : -x; z++; ++z; z--; --z\n"
"  ;\n"
"  if (name_@@ =~ \"^bl(k)[0-9]+$\") println(matched(1))\n"
"  else if (name_@@ !~ \"x\") printf(\"%s\\n\", name_@@)\n"
"  else { print(x, y, z); println(\"done\") }\n"
"  printd(\" \", x, y); printdln(\",\", x, y, z); print_char(65)\n"
"%( kernel_v >= \"5.10\" && arch == \"x86_64\" %? println(\"new\") %: println(\"old\") %)\n"
"%( systemtap_v <= \"4.8\" || CONFIG_SMP == \"y\" %? x = 1 %)\n"
"%( $# > 1 %? x = 2 %: %( guru_mode == 1 %? x = 3 %: x = 4 %) %)\n"
"%( kernel_vr == \"6.1*\" && runtime != \"dyninst\" %? x = 5 %)\n"
"  delete bytes_@@; delete pair_@@; delete count_@@\n"
"}\n"
"\n"
"probe kprobe.function(\"vfs_read\"), kprobe.function(\"vfs_write\").return.maxactive(20)?,\n"
"      kprobe.module(\"ext4\").function(\"ext4_file_*\")!, tap_@@.read if (limit_@@ > 0)\n"
"{\n"
"  bytes_@@[execname(), pid()] += 1\n"
"  lat_@@ <<< gettimeofday_ns() % 1000\n"
"  ring_@@[tid()] = @count(lat_@@)\n"
"  pair_@@[\"k\", @@] <<< 1\n"
"  if ([execname(), pid()] in bytes_@@ && !(tid() in ring_@@)) next\n"
"  i = 0\n"
"  while (i < @LIM_@@) { i++; if (i == 3) continue; if (i > 8) break }\n"
"  for (j = 0; j < 4; j++) { i += j }\n"
"  for (;;) break\n"
"  try { x = 1 / i } catch (msg) { println(msg) }\n"
"  try { error(\"no\") } catch { x = 0 }\n"
"}\n"
"\n"
"probe kernel.function(\"do_sys_open@fs/open.c:1200\").return,\n"
"      kernel.function(\"*@kernel/sched/*.c\").inline, kernel.function(\"vfs_*\").exported,\n"
"      module(\"ext4\").function(\"ext4_*\").return.maxactive(8), kernel.statement(\"*@fs/open.c:100-120\")\n"
"{\n"
"  f = $filename; m = $mode$; d = $dfd$$; all = $$vars; p = $$parms; l = $$locals$$\n"
"  r = $return; rr = $$return; e = @entry($dfd + 1)\n"
"  v = $file->f_path->dentry->d_name->name; w = $argv[1]; q = &$file->f_pos\n"
"  c = @cast($file, \"struct file\", \"kernel<linux/fs.h>\")->f_flags\n"
"  c2 = @cast(ptr, \"task_struct\")->pid + @var(\"jiffies@kernel/time/timer.c\", \"kernel\")\n"
"  if (@defined($flags) && @defined(@entry($mode))) c = @const(\"O_RDONLY\")\n"
"  g = @kregister(0) + @uregister(1) + @kderef(8, c) + @uderef(4, c)\n"
"  if (@probewrite($mode)) $mode = 0\n"
"  h = %{ BLK_@@ + 1 %}\n"
"  lat_@@ <<< raw_@@(f) + add_@@(1, 2) + add_@@(1, 2, 3)\n"
"}\n"
"\n"
"probe kernel.trace(\"sched:sched_switch\"), kernel.trace(\"syscalls:sys_enter_*\"),\n"
"      kernel.data(0xffffffff8100@@).write, kernel.statement(0xffffffff8100@@).absolute,\n"
"      kernel.data(\"jiffies\").rw.length(8)\n"
"{\n"
"  pair_@@[$prev->comm, $next_pid] <<< $prev_state\n"
"}\n"
"\n"
"probe process(\"/bin/ls\").function(\"main\"), process(\"/usr/lib/libc.so.6\").function(\"malloc\").return,\n"
"      process(@@).statement(\"*@main.c:10\"), process(\"/bin/ls\").mark(\"start\"),\n"
"      process(\"/bin/ls\").plt(\"*\"), process.begin, process(\"/bin/sh\").end, process.syscall.return,\n"
"      perf.sw.cpu_clock.sample(1000000), perf.hw.cpu_cycles.process(\"/bin/ls\").counter(\"c\"),\n"
"      procfs(\"tap@@\").read.maxsize(4096), procfs(\"tap@@\").write,\n"
"      netfilter.hook(\"NF_INET_PRE_ROUTING\").pf(\"NFPROTO_IPV4\").priority(\"-1\"),\n"
"      syscall.{open,close}.return, nd_syscall.*, kernel.function(\"**\")?, **.foo_@@?\n"
"{\n"
"  next\n"
"}\n"
"\n"
"probe timer.ms(100).randomize(10), timer.s(5), timer.us(999), timer.ns(100000),\n"
"      timer.jiffies(25), timer.hz(10), timer.profile, timer.sec(1)\n"
"{\n"
"  foreach (k in ring_@@) total += ring_@@[k]\n"
"  foreach (k in ring_@@-) printf(\"%d\\n\", k)\n"
"  foreach (k+ in ring_@@ limit 5) printf(\"%d\\n\", k)\n"
"  foreach ([a, b] in bytes_@@) printf(\"%s %d\\n\", a, b)\n"
"  foreach ([a, b-] in bytes_@@ limit @LIM_@@) printf(\"%s %d\\n\", a, b)\n"
"  foreach ([a, b] in bytes_@@[*, 12]) printf(\"%s %d\\n\", a, b)\n"
"  foreach (v = [a, b] in bytes_@@[\"bash\", *]) printf(\"%s %d %d\\n\", a, b, v)\n"
"  foreach (v = [a, b] in pair_@@ @sum+ limit 3) printf(\"%d %d\\n\", @sum(pair_@@[a, b]), v)\n"
"  foreach ([a, b] in pair_@@ @max-) printf(\"%s\\n\", a)\n"
"  foreach (bucket in @hist_log(lat_@@)) printf(\"%d\\n\", @hist_log(lat_@@)[bucket])\n"
"  if (@count(lat_@@) > 0) {\n"
"    printf(\"%d %d %d %d %d %d\\n\", @count(lat_@@), @sum(lat_@@), @min(lat_@@),\n"
"           @max(lat_@@), @avg(lat_@@), @variance(lat_@@))\n"
"    print(@hist_log(lat_@@)); print(@hist_linear(lat_@@, 0, 1000, 50))\n"
"    printf(\"%d\\n\", @hist_linear(lat_@@, 0, 1000, 50)[2])\n"
"  }\n"
"  delete bytes_@@[\"bash\", 1]; delete bytes_@@[*, 2]; delete ring_@@[tid()]\n"
"  println(fmt_@@(\"k\", 1), pick_@@(-1), $1, @1, $#, @#)\n"
"  exit()\n"
"}\n"
"\n";

int main(int argc, char **argv)
{
	long want = argc > 1 ? atol(argv[1]) : 50000;
	long lines = 0, per_block = 0;
	const char *p;
	char num[32];

	for (p = block; *p; p++)
		per_block += *p == '\n';
	printf("# generated by bench/gen %ld: every construct, repeated; needs -g\n", want);
	lines = 1;
	for (long i = 0; lines < want; i++) {
		int n = snprintf(num, sizeof num, "%ld", i);
		for (p = block; *p; p++) {
			if (p[0] == '@' && p[1] == '@') {
				fwrite(num, 1, (size_t)n, stdout);
				p++;
			} else {
				putchar(*p);
			}
		}
		lines += per_block;
	}
	return ferror(stdout) ? 1 : 0;
}
