// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * netfilter.c - netfilter.pf("P").hook("H")[.priority("N")]: the probes'
 * hook functions in every network namespace.
 *
 * Each TP_PROBE_NETFILTER probe gets one struct nf_hook_ops (family,
 * hook, priority; priv: the probe) whose function, tp_nf_hook(), runs
 * the probe's handler with a struct tp_nf_hit in c->data and returns
 * the verdict the handler left there (NF_ACCEPT unless a -g script sets
 * $verdict). The hooks are registered in every network namespace that
 * exists when the session starts and in every one made while it runs,
 * through a pernet_operations whose init registers them all with
 * nf_register_net_hooks() (all or none: a refusal undoes the namespace's
 * others) and whose exit unregisters them. A refusal in a namespace
 * that exists at start is the session's registration error naming the
 * first probe ("ERROR: probe netfilter... registration error"); a
 * namespace made later that refuses them does not come into existence
 * (the kernel's rule for pernet_operations), as with stap.
 *
 * Hooks run in softirq context (receive) or in the sending task with
 * bottom halves on (LOCAL_OUT): tp_run_probe() disables preemption.
 * The kernel's <linux/netfilter.h> is the same for this on 6.1 and 6.12
 * (nf_hookfn, struct nf_hook_state, nf_register_net_hooks()).
 */
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "core.h"

static struct nf_hook_ops *tp_nf_ops;
static unsigned int tp_nf_n;
static bool tp_nf_registered;

static unsigned int tp_nf_hook(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	struct tp_nf_hit hit = {
		.hooknum = state->hook,
		.skb = (s64)(uintptr_t)skb,
		.in = (s64)(uintptr_t)state->in,
		.out = (s64)(uintptr_t)state->out,
		.okfn = (s64)(uintptr_t)state->okfn,
		.verdict = NF_ACCEPT,
	};

	tp_run_probe(priv, NULL, 0, &hit);
	/* (a script's number: the kernel takes the low byte as NF_* and
	 * the rest as the errno of NF_DROP_ERR or a queue number) */
	return (unsigned int)hit.verdict;
}

static int __net_init tp_nf_net_init(struct net *net)
{
	return nf_register_net_hooks(net, tp_nf_ops, tp_nf_n);
}

static void __net_exit tp_nf_net_exit(struct net *net)
{
	nf_unregister_net_hooks(net, tp_nf_ops, tp_nf_n);
}

static struct pernet_operations tp_nf_pernet = {
	.init = tp_nf_net_init,
	.exit = tp_nf_net_exit,
};

int tp_netfilter_init(void)
{
	const struct tp_probe *v = tapir_module.probes;
	unsigned int i, n = tp_probes_count(TP_PROBE_NETFILTER);

	if (!n)
		return 0;
	tp_nf_ops = kcalloc(n, sizeof(*tp_nf_ops), GFP_KERNEL);
	if (!tp_nf_ops)
		return -ENOMEM;
	for (i = 0; i < tapir_module.nprobes; i++) {
		struct nf_hook_ops *o = &tp_nf_ops[tp_nf_n];

		if (v[i].kind != TP_PROBE_NETFILTER)
			continue;
		o->hook = tp_nf_hook;
		o->priv = (void *)&v[i];
		o->pf = v[i].nf_pf;
		o->hooknum = v[i].nf_hooknum;
		o->priority = v[i].nf_priority;
		tp_nf_n++;
	}
	return 0;
}

int tp_netfilter_start(const char **failed)
{
	int rc;

	if (!tp_nf_n)
		return 0;
	rc = register_pernet_subsys(&tp_nf_pernet);
	if (rc) {
		*failed = ((const struct tp_probe *)tp_nf_ops[0].priv)->pp;
		return rc;
	}
	tp_nf_registered = true;
	return 0;
}

void tp_netfilter_stop(void)
{
	if (!tp_nf_registered)
		return;
	/* (nf_unregister_net_hooks() waits for the hooks still running) */
	unregister_pernet_subsys(&tp_nf_pernet);
	tp_nf_registered = false;
}

void tp_netfilter_free(void)
{
	kfree(tp_nf_ops);
	tp_nf_ops = NULL;
	tp_nf_n = 0;
}
