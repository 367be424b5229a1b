/* dwarf-types.c - C types from DWARF: their names as SystemTap spells
 * them, members, sizes, and finding a type by name for @cast.
 *
 * Names follow stap -L: modifiers are written after what they modify,
 * without spaces before '*' ("char const*", "struct iovec const*"),
 * arrays lose their bounds ("struct iovec[]"), anonymous aggregates are
 * "struct {...}", and a pointer to nothing is "void*".
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf-internal.h"
#include "xalloc.h"

#define MAX_TYPE_DEPTH 32

static bool type_of(Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(d, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, out) != NULL;
}

static bool name_into(Dwarf_Die *d, char *buf, size_t cap, int depth);

/* "int (*) (struct net*, void*)", "void (*) (void)" */
static bool function_pointer(Dwarf_Die *fn, char *buf, size_t cap, int depth)
{
	Dwarf_Die ret, c;
	size_t len;
	int nargs = 0;

	if (type_of(fn, &ret)) {
		if (!name_into(&ret, buf, cap, depth + 1))
			return false;
	} else {
		len = strlen(buf);
		snprintf(buf + len, cap - len, "void");
	}
	len = strlen(buf);
	snprintf(buf + len, cap - len, " (*) (");
	if (dwarf_child(fn, &c) == 0) {
		do {
			Dwarf_Die t;

			len = strlen(buf);
			if (dwarf_tag(&c) == DW_TAG_unspecified_parameters) {
				snprintf(buf + len, cap - len, "%s...",
					 nargs++ ? ", " : "");
				continue;
			}
			if (dwarf_tag(&c) != DW_TAG_formal_parameter)
				continue;
			snprintf(buf + len, cap - len, "%s", nargs++ ? ", " : "");
			if (!type_of(&c, &t) || !name_into(&t, buf, cap, depth + 1))
				return false;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	len = strlen(buf);
	snprintf(buf + len, cap - len, "%s)", nargs ? "" : "void");
	return true;
}

/* Appends the name of type d to buf; false for a type stap cannot name
 * (a function type), which leaves the variable out of -L. */
static bool name_into(Dwarf_Die *d, char *buf, size_t cap, int depth)
{
	Dwarf_Die sub;
	const char *kw = NULL, *suffix = NULL, *name = dwarf_diename(d);
	size_t len = strlen(buf);
	bool has_sub;

	if (depth > MAX_TYPE_DEPTH)
		return false;
	switch (dwarf_tag(d)) {
	case DW_TAG_enumeration_type:
		kw = "enum ";
		break;
	case DW_TAG_structure_type:
		kw = "struct ";
		break;
	case DW_TAG_union_type:
		kw = "union ";
		break;
	case DW_TAG_class_type:
		kw = "class ";
		break;
	case DW_TAG_base_type:
	case DW_TAG_typedef:
	case DW_TAG_unspecified_type:
		if (!name)
			return false;
		snprintf(buf + len, cap - len, "%s", name);
		return true;
	case DW_TAG_pointer_type:
		suffix = "*";
		break;
	case DW_TAG_reference_type:
		suffix = "&";
		break;
	case DW_TAG_rvalue_reference_type:
		suffix = "&&";
		break;
	case DW_TAG_array_type:
		suffix = "[]";
		break;
	case DW_TAG_const_type:
		suffix = " const";
		break;
	case DW_TAG_volatile_type:
		suffix = " volatile";
		break;
	case DW_TAG_restrict_type:
		suffix = " restrict";
		break;
	default:
		return false;
	}
	if (kw) {
		snprintf(buf + len, cap - len, "%s%s", kw, name ? name : "{...}");
		return true;
	}
	has_sub = type_of(d, &sub);
	if (has_sub && dwarf_tag(d) == DW_TAG_pointer_type &&
	    dwarf_tag(&sub) == DW_TAG_subroutine_type)
		return function_pointer(&sub, buf, cap, depth);
	/* the compiler's va_list is a pointer to struct __va_list_tag */
	if (has_sub && dwarf_tag(d) == DW_TAG_pointer_type &&
	    dwarf_tag(&sub) == DW_TAG_structure_type && dwarf_diename(&sub) &&
	    strcmp(dwarf_diename(&sub), "__va_list_tag") == 0) {
		snprintf(buf + len, cap - len, "va_list");
		return true;
	}
	if (has_sub) {
		if (!name_into(&sub, buf, cap, depth + 1))
			return false;
	} else if (strcmp(suffix, "[]") == 0) {
		return false;
	} else {
		snprintf(buf + len, cap - len, "void");
	}
	len = strlen(buf);
	snprintf(buf + len, cap - len, "%s", suffix);
	return true;
}

const char *dwt_name(struct session *s, Dwarf_Die *type)
{
	char buf[1024];

	buf[0] = '\0';
	if (!name_into(type, buf, sizeof(buf), 0))
		return NULL;
	return arena_strdup(&s->arena, buf);
}

static bool type_in_cu(Dwarf_Die *cu, int tag, const char *bare,
		       Dwarf_Die *out);

/* A struct, union or enum this CU only declares ("struct files_struct;"
 * in sched.h's users) is defined in some other CU of the same file:
 * the first definition of that name stands for it, as in stap. The
 * answers are kept, for a declaration is met at every access. */
static bool complete_type(Dwarf_Die *decl, Dwarf_Die *out)
{
	enum { NSEEN = 64 };
	static struct { Dwarf *dw; Dwarf_Off decl, def; } seen[NSEEN];
	static unsigned next;
	unsigned slot = next;
	Dwarf *dw = dwarf_cu_getdwarf(decl->cu);
	Dwarf_Off off = 0, nextcu, here = dwarf_dieoffset(decl);
	const char *name = dwarf_diename(decl);
	size_t hsize;

	if (!dw || !name)
		return false;
	/* (a Dwarf freed and another at its address: the names differ) */
	for (unsigned i = 0; i < NSEEN; i++)
		if (seen[i].dw == dw && seen[i].decl == here && seen[i].def &&
		    dwarf_offdie(dw, seen[i].def, out) &&
		    dwarf_diename(out) && strcmp(dwarf_diename(out), name) == 0)
			return true;
	next = (next + 1) % NSEEN;
	seen[slot].dw = dw;
	seen[slot].decl = here;
	seen[slot].def = 0;
	while (dwarf_nextcu(dw, off, &nextcu, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    type_in_cu(&cu, dwarf_tag(decl), name, out)) {
			seen[slot].def = dwarf_dieoffset(out);
			return true;
		}
		off = nextcu;
	}
	return false;
}

bool dwt_peel(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die d = *type;

	for (int i = 0; i < MAX_TYPE_DEPTH; i++) {
		int tag = dwarf_tag(&d);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type) {
			if ((tag == DW_TAG_structure_type ||
			     tag == DW_TAG_union_type ||
			     tag == DW_TAG_enumeration_type) &&
			    dwarf_hasattr(&d, DW_AT_declaration) &&
			    complete_type(&d, out))
				return true;
			*out = d;
			return true;
		}
		if (!type_of(&d, &d))
			return false;	/* const void */
	}
	return false;
}

int64_t dwt_size(Dwarf_Die *type)
{
	Dwarf_Word size;
	Dwarf_Die t;

	if (!dwt_peel(type, &t))
		return -1;
	if (dwarf_tag(&t) == DW_TAG_pointer_type)
		return 8;
	if (dwarf_aggregate_size(&t, &size) != 0)
		return -1;
	return (int64_t)size;
}

static int64_t member_offset(Dwarf_Die *m)
{
	Dwarf_Attribute a;
	Dwarf_Word off = 0;

	if (dwarf_attr_integrate(m, DW_AT_data_member_location, &a))
		dwarf_formudata(&a, &off);
	return (int64_t)off;
}

bool dwt_member(Dwarf_Die *type, const char *name, Dwarf_Die *member,
		int64_t *offset)
{
	Dwarf_Die t, m;

	if (!dwt_peel(type, &t))
		return false;
	if (dwarf_tag(&t) != DW_TAG_structure_type &&
	    dwarf_tag(&t) != DW_TAG_union_type &&
	    dwarf_tag(&t) != DW_TAG_class_type)
		return false;
	if (dwarf_child(&t, &m) != 0)
		return false;
	do {
		const char *n;
		Dwarf_Die mt;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		n = dwarf_diename(&m);
		if (n && strcmp(n, name) == 0) {
			*member = m;
			*offset += member_offset(&m);
			return true;
		}
		/* an anonymous struct or union: its members are ours */
		if (!n && type_of(&m, &mt)) {
			int64_t inner = 0;

			if (dwt_member(&mt, name, member, &inner)) {
				*offset += member_offset(&m) + inner;
				return true;
			}
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

static void member_names_into(Dwarf_Die *type, char **buf, size_t *len,
			      size_t *cap, int depth)
{
	Dwarf_Die t, m;

	if (depth > 8 || !dwt_peel(type, &t) || dwarf_child(&t, &m) != 0)
		return;
	do {
		const char *n;
		Dwarf_Die mt;
		size_t k;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		n = dwarf_diename(&m);
		if (!n) {
			if (type_of(&m, &mt))
				member_names_into(&mt, buf, len, cap, depth + 1);
			continue;
		}
		k = strlen(n);
		if (*len + k + 3 > *cap) {
			*cap = (*len + k + 3) * 2;
			*buf = xrealloc(*buf, *cap);
		}
		if (*len) {
			memcpy(*buf + *len, ", ", 2);
			*len += 2;
		}
		memcpy(*buf + *len, n, k + 1);
		*len += k;
	} while (dwarf_siblingof(&m, &m) == 0);
}

const char *dwt_member_names(struct session *s, Dwarf_Die *type)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	const char *out;

	member_names_into(type, &buf, &len, &cap, 0);
	out = arena_strdup(&s->arena, buf ? buf : "");
	free(buf);
	return out;
}

/* "struct file" -> (DW_TAG_structure_type, "file"); "file" -> any
 * struct, union, enum or typedef named file. */
static bool split_type_name(const char *name, int *tag, const char **bare)
{
	static const struct { const char *kw; int tag; } kws[] = {
		{ "struct ", DW_TAG_structure_type },
		{ "union ", DW_TAG_union_type },
		{ "enum ", DW_TAG_enumeration_type },
	};

	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++) {
		size_t n = strlen(kws[i].kw);

		if (strncmp(name, kws[i].kw, n) == 0) {
			*tag = kws[i].tag;
			*bare = name + n;
			return true;
		}
	}
	*tag = 0;
	*bare = name;
	return true;
}

static bool type_in_cu(Dwarf_Die *cu, int tag, const char *bare,
		       Dwarf_Die *out)
{
	Dwarf_Die d;

	if (dwarf_child(cu, &d) != 0)
		return false;
	do {
		int t = dwarf_tag(&d);
		const char *n;

		if (tag ? t != tag : (t != DW_TAG_structure_type &&
				      t != DW_TAG_union_type &&
				      t != DW_TAG_enumeration_type &&
				      t != DW_TAG_typedef &&
				      t != DW_TAG_base_type))
			continue;
		if (dwarf_hasattr(&d, DW_AT_declaration))
			continue;
		n = dwarf_diename(&d);
		if (n && strcmp(n, bare) == 0) {
			*out = d;
			return true;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return false;
}

/* The CUs are walked in order until one defines the type: common kernel
 * types are defined by the first few. */
bool dwt_find(struct session *s, struct dwarf_unit *u, const char *name,
	      Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int tag;
	const char *bare;

	(void)s;
	split_type_name(name, &tag, &bare);
	while (dwarf_nextcu(u->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(u->dw, off + hsize, &cu) &&
		    type_in_cu(&cu, tag, bare, out))
			return true;
		off = next;
	}
	return false;
}
