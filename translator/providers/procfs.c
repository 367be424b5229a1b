/* procfs.c - procfs("path").read/.write, procfs.read/.write (the path
 * "command"), with .umask(N) and, for reads, .maxsize(N): files under
 * /proc/systemtap/MODULE that run the probe when they are read or
 * written (runtime/procfs.c). $value is the file's content (read: the
 * handler sets it with = and .=) or what was written (write: read only);
 * resolve.c and types.c check its uses, the emitter turns them into
 * runtime calls. */
#include <string.h>

#include "provider.h"

static const char *const patterns[] = {
	"procfs.read", "procfs(s).read",
	"procfs.umask(n).read", "procfs(s).umask(n).read",
	"procfs.read.maxsize(n)", "procfs(s).read.maxsize(n)",
	"procfs.umask(n).read.maxsize(n)", "procfs(s).umask(n).read.maxsize(n)",
	"procfs.write", "procfs(s).write",
	"procfs.umask(n).write", "procfs(s).umask(n).write",
	NULL
};

/* NULL, or why path cannot name a file under the module's folder. */
static const char *path_problem(const char *path)
{
	size_t n = strlen(path);
	const char *p = path;

	if (path[0] == '/')
		return "procfs path cannot start with a '/'";
	if (n == 0 || path[n - 1] == '/')
		return "procfs path cannot end with a '/'";
	while (*p) {
		size_t len = strcspn(p, "/");

		if (len == 0)
			return "procfs path component cannot be empty";
		if ((len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return "procfs path cannot be relative (and contain "
			       "'.' or '..')";
		p += len;
		if (*p == '/')
			p++;
	}
	return NULL;
}

static const struct pp_comp *comp_named(const struct probe_point *pp,
					const char *name)
{
	for (const struct pp_comp *c = pp->comps; c; c = c->next)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

static int resolve(struct elab *e, const struct probe_point *pp, int pattern,
		   const struct dprobe *tmpl)
{
	const struct pp_comp *first = pp->comps, *umask, *maxsize;
	const char *path = first->arg ? first->arg->str : "command";
	const char *why = path_problem(path);
	bool write = comp_named(pp, "write") != NULL;
	struct dprobe *p;

	(void)pattern;
	if (why) {
		elab_error(e, &first->loc, "%s", why);
		return -1;
	}
	maxsize = comp_named(pp, "maxsize");
	if (maxsize && maxsize->arg->num <= 0) {
		elab_error(e, &maxsize->loc, "maxsize must be greater than 0");
		return -1;
	}
	/* one read probe per file (as many write probes as wanted:
	 * input.char and input.line share procfs("__stdin").write) */
	for (const struct dprobe *o = e->prog->probes; o && !write; o = o->next)
		if (o->procfs && !o->procfs_write &&
		    strcmp(o->procfs, path) == 0) {
			elab_error(e, &first->loc, "only one read procfs probe "
				   "can exist for procfs path \"%s\"", path);
			return -1;
		}
	umask = comp_named(pp, "umask");
	p = probe_emit(e, tmpl, pp);
	p->procfs = path;
	p->procfs_write = write;
	p->procfs_umask = umask ? umask->arg->num : -1;
	p->procfs_maxsize = maxsize ? maxsize->arg->num : 0;
	return 1;
}

const struct provider pp_procfs = {
	.name = "procfs",
	.patterns = patterns,
	.resolve = resolve,
};
