/* netfilter.c - netfilter.hook("H").pf("PF")[.priority("P")] and
 * netfilter.pf("PF").hook("H")[.priority("P")].
 *
 * A probe is a netfilter hook function (runtime/netfilter.c) registered
 * with nf_register_net_hook() in every network namespace, for one
 * protocol family, one hook and one priority, which the point names as
 * the kernel's headers do: NFPROTO_IPV4, NF_INET_LOCAL_IN,
 * NF_IP_PRI_FILTER (or a number as a string, "-5"). The names each
 * family takes are those of <linux/netfilter*.h> that stap 4.8 takes
 * (tables below); with -g a number stands for any of the three, and
 * nothing else does: Tapir does not paste the script's text into C.
 *
 * The handler's context variables are numbers: $hooknum, $skb, $in,
 * $out, $okfn (addresses, as stap's), and $verdict, which needs -g,
 * read or written (what the hook returns; NF_ACCEPT unless the handler
 * sets it). Each becomes a local __nf_NAME of the probe, as in stap, that
 * the handler's prologue sets from the hook's arguments and whose
 * last value of __nf_verdict the hook returns (emit.c).
 */
#include <stdlib.h>
#include <string.h>

#include "provider.h"

static const char *const patterns[] = {
	"netfilter.hook(s).pf(s)",
	"netfilter.pf(s).hook(s)",
	"netfilter.hook(s).pf(s).priority(s)",
	"netfilter.pf(s).hook(s).priority(s)",
	NULL
};

struct nf_name {
	const char *name;
	long value;
};

/* <uapi/linux/netfilter.h> */
static const struct nf_name families[] = {
	{ "NFPROTO_IPV4", 2 }, { "NFPROTO_ARP", 3 }, { "NFPROTO_BRIDGE", 7 },
	{ "NFPROTO_IPV6", 10 }, { NULL, 0 }
};

/* the hooks of each family, as stap 4.8 takes them */
static const struct nf_name ipv4_hooks[] = {
	{ "NF_INET_PRE_ROUTING", 0 }, { "NF_INET_LOCAL_IN", 1 },
	{ "NF_INET_FORWARD", 2 }, { "NF_INET_LOCAL_OUT", 3 },
	{ "NF_INET_POST_ROUTING", 4 },
	/* <uapi/linux/netfilter_ipv4.h>'s older names */
	{ "NF_IP_PRE_ROUTING", 0 }, { "NF_IP_LOCAL_IN", 1 },
	{ "NF_IP_FORWARD", 2 }, { "NF_IP_LOCAL_OUT", 3 },
	{ "NF_IP_POST_ROUTING", 4 }, { NULL, 0 }
};

static const struct nf_name ipv6_hooks[] = {
	{ "NF_IP6_PRE_ROUTING", 0 }, { "NF_IP6_LOCAL_IN", 1 },
	{ "NF_IP6_FORWARD", 2 }, { "NF_IP6_LOCAL_OUT", 3 },
	{ "NF_IP6_POST_ROUTING", 4 }, { NULL, 0 }
};

static const struct nf_name arp_hooks[] = {
	{ "NF_ARP_IN", 0 }, { "NF_ARP_OUT", 1 }, { "NF_ARP_FORWARD", 2 },
	{ NULL, 0 }
};

static const struct nf_name bridge_hooks[] = {
	{ "NF_BR_PRE_ROUTING", 0 }, { "NF_BR_LOCAL_IN", 1 },
	{ "NF_BR_FORWARD", 2 }, { "NF_BR_LOCAL_OUT", 3 },
	{ "NF_BR_POST_ROUTING", 4 }, { NULL, 0 }
};

#define PRI_FIRST (-2147483647L - 1)
#define PRI_LAST 2147483647L

/* <uapi/linux/netfilter_ipv4.h>, <uapi/linux/netfilter_ipv6.h> */
static const struct nf_name ipv4_priorities[] = {
	{ "NF_IP_PRI_FIRST", PRI_FIRST },
	{ "NF_IP_PRI_RAW_BEFORE_DEFRAG", -450 },
	{ "NF_IP_PRI_CONNTRACK_DEFRAG", -400 }, { "NF_IP_PRI_RAW", -300 },
	{ "NF_IP_PRI_SELINUX_FIRST", -225 }, { "NF_IP_PRI_CONNTRACK", -200 },
	{ "NF_IP_PRI_MANGLE", -150 }, { "NF_IP_PRI_NAT_DST", -100 },
	{ "NF_IP_PRI_FILTER", 0 }, { "NF_IP_PRI_SECURITY", 50 },
	{ "NF_IP_PRI_NAT_SRC", 100 }, { "NF_IP_PRI_SELINUX_LAST", 225 },
	{ "NF_IP_PRI_CONNTRACK_HELPER", 300 },
	{ "NF_IP_PRI_CONNTRACK_CONFIRM", PRI_LAST },
	{ "NF_IP_PRI_LAST", PRI_LAST }, { NULL, 0 }
};

static const struct nf_name ipv6_priorities[] = {
	{ "NF_IP6_PRI_FIRST", PRI_FIRST },
	{ "NF_IP6_PRI_RAW_BEFORE_DEFRAG", -450 },
	{ "NF_IP6_PRI_CONNTRACK_DEFRAG", -400 }, { "NF_IP6_PRI_RAW", -300 },
	{ "NF_IP6_PRI_SELINUX_FIRST", -225 }, { "NF_IP6_PRI_CONNTRACK", -200 },
	{ "NF_IP6_PRI_MANGLE", -150 }, { "NF_IP6_PRI_NAT_DST", -100 },
	{ "NF_IP6_PRI_FILTER", 0 }, { "NF_IP6_PRI_SECURITY", 50 },
	{ "NF_IP6_PRI_NAT_SRC", 100 }, { "NF_IP6_PRI_SELINUX_LAST", 225 },
	{ "NF_IP6_PRI_CONNTRACK_HELPER", 300 },
	{ "NF_IP6_PRI_LAST", PRI_LAST }, { NULL, 0 }
};

static const struct nf_name *hooks_of(long pf)
{
	switch (pf) {
	case 2: return ipv4_hooks;
	case 10: return ipv6_hooks;
	case 3: return arp_hooks;
	case 7: return bridge_hooks;
	default: return NULL;
	}
}

static const struct nf_name *priorities_of(long pf)
{
	switch (pf) {
	case 2: return ipv4_priorities;
	case 10: return ipv6_priorities;
	default: return NULL;
	}
}

static bool lookup(const struct nf_name *t, const char *s, long *v)
{
	for (; t && t->name; t++)
		if (strcmp(t->name, s) == 0) {
			*v = t->value;
			return true;
		}
	return false;
}

/* A decimal number, optionally signed, in int's range. */
static bool number(const char *s, long *v)
{
	char *end;
	long n;

	if (!*s)
		return false;
	n = strtol(s, &end, 10);
	if (*end || n < PRI_FIRST || n > PRI_LAST)
		return false;
	*v = n;
	return true;
}

static const char *names_of(struct session *s, const struct nf_name *t)
{
	const char *list = NULL;

	for (; t && t->name; t++)
		list = list ? arena_printf(&s->arena, "%s, %s", list, t->name)
			    : t->name;
	return list ? list : "none";
}

static const struct pp_comp *comp(const struct probe_point *pp,
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
	struct session *s = e->s;
	const struct pp_comp *pfc = comp(pp, "pf"), *hc = comp(pp, "hook"),
			     *prc = comp(pp, "priority");
	const char *pf, *hook;
	long pfn, hookn, prio = 0;
	struct dprobe *p;

	(void)pattern;
	pf = pfc->arg->str;
	hook = hc->arg->str;
	if (!lookup(families, pf, &pfn) && !(s->guru && number(pf, &pfn))) {
		elab_error(e, &pfc->arg->loc, "unknown netfilter protocol "
			   "family \"%s\" (known: %s%s)", pf,
			   names_of(s, families), s->guru ? "; or a number" :
			   "");
		return -1;
	}
	if (!lookup(hooks_of(pfn), hook, &hookn) &&
	    !(s->guru && number(hook, &hookn) && hookn >= 0)) {
		elab_error(e, &hc->arg->loc, "unknown netfilter hook \"%s\" "
			   "for protocol family %s (its hooks: %s%s)", hook,
			   pf, names_of(s, hooks_of(pfn)), s->guru ?
			   "; or a number" : "");
		return -1;
	}
	if (prc && !lookup(priorities_of(pfn), prc->arg->str, &prio) &&
	    !number(prc->arg->str, &prio)) {
		elab_error(e, &prc->arg->loc, "unknown netfilter priority "
			   "\"%s\" for protocol family %s (a decimal number%s)",
			   prc->arg->str, pf, pfn == 2 ? " or an NF_IP_PRI_* "
			   "name" : pfn == 10 ? " or an NF_IP6_PRI_* name" : "");
		return -1;
	}
	p = probe_emit(e, tmpl, pp);
	p->netfilter = true;
	p->nf_pf = (int)pfn;
	p->nf_hook = (int)hookn;
	p->nf_priority = prio;
	return 1;
}

/* The context variables of a netfilter probe, in the order of struct
 * tp_nf_hit (runtime/tapir.h). */
static const char *const targets[] = {
	"hooknum", "skb", "in", "out", "okfn", "verdict", NULL
};

bool netfilter_target(struct elab *e, struct expr *x)
{
	int i;

	if (x->kind == E_CTXVAR) {
		elab_error(e, &x->loc, "'$$%s' is not available in netfilter "
			   "probes: their context variables are $hooknum, "
			   "$skb, $in, $out, $okfn and $verdict", x->str);
		return true;
	}
	for (i = 0; targets[i]; i++)
		if (strcmp(x->str, targets[i]) == 0)
			break;
	if (!targets[i]) {
		elab_error(e, &x->loc, "unknown context variable '$%s' of a "
			   "netfilter probe (it has $hooknum, $skb, $in, $out, "
			   "$okfn and $verdict)", x->str);
		return true;
	}
	if (x->chain || x->pretty || x->addr) {
		elab_error(e, &x->loc, "'$%s' of a netfilter probe is a number:"
			   " members, pretty printing and '&' do not apply (use "
			   "@cast)", x->str);
		return true;
	}
	if (strcmp(x->str, "verdict") == 0 && !e->s->guru) {
		elab_error(e, &x->loc, "'$verdict' of a netfilter probe needs "
			   "-g (guru mode)");
		return true;
	}
	x->kind = E_VAR;
	x->str = arena_printf(&e->s->arena, "__nf_%s", targets[i]);
	return true;
}

bool netfilter_local(const char *name, int *slot)
{
	if (strncmp(name, "__nf_", 5) != 0)
		return false;
	for (int i = 0; targets[i]; i++)
		if (strcmp(name + 5, targets[i]) == 0) {
			*slot = i;
			return true;
		}
	return false;
}

const struct provider pp_netfilter = {
	.name = "netfilter",
	.patterns = patterns,
	.resolve = resolve,
};
