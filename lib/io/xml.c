/* SPDX-License-Identifier: MIT */
/* xml.c: safe XML loading (xml_int.h). Owns the libxml2 settings every
 * reader shares: no network, no DTD loading or entity substitution, a
 * DOCTYPE refused outright, libxml2's default size limits, and structured
 * error capture into the diagnostics sink; and the typed attribute readers
 * of the schema-valid trees every reader walks. */
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlmemory.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlschemastypes.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlwriter.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "io/schema_int.h"
#include "base/util_int.h"
#include "io/pack_int.h"
#include "io/xml_int.h"

/* libxml2's global state, once per process. The library never installs
 * allocator hooks (xmlMemSetup): libxml2 allocates on whatever allocator
 * the program gave it, the default one otherwise, and a tree is freed with
 * xmlFreeDoc. Memory is bounded by what is checked before the parse (the
 * input's size, CM_MAX_INPUT_BYTES; attributes and namespaces per tag; a
 * reader's own pre-check) and libxml2's default limits (no
 * XML_PARSE_HUGE). */
static void parser_init(void)
{
	xmlInitParser();
	xmlSchemaInitTypes();
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Exact source positions of elements and attributes. libxml2 keeps a
 * node's line in an unsigned short: past 65535 it stores 65535, and even
 * with XML_PARSE_BIG_LINES xmlGetLineNo only guesses an element's line from
 * a text child or a sibling (none under NOBLANKS). So the reader records
 * each element's '<' and each attribute name itself, from the parser's byte
 * offset into the text, as line and column (1-based, in characters like
 * libxml2's own columns); node->_private holds index + 1 into the table,
 * which hangs off doc->_private once the parse succeeded (freed by
 * cm_xml_free_doc). */
typedef struct {
	unsigned line, col;
	unsigned cline, ccol; /* elements: where the content after the start tag begins */
} xml_pos;

typedef struct {
	xml_pos *v;
	size_t n, cap;
	/* the root's element children, with their names, in document order
	 * (cm_xml_top): a reader finds them without walking the tree */
	cm_xml_top *top;
	size_t n_top, cap_top;
} pos_table;

static void pos_free(pos_table *t)
{
	if (t) {
		free(t->v);
		free(t->top);
		free(t);
	}
}

typedef struct {
	cm_diags *d;
	const char *file;
	const char *rule;
	int count;
	int errors;  /* of those, errors (not warnings): the parse fails on any */
	int doctype; /* a DOCTYPE was met and the parse stopped there */
	/* position recording (start_element): the text parsed and a cursor
	 * that only moves forward, so the cost is linear in the text */
	const char *buf;
	size_t len;
	size_t at;            /* cursor offset */
	unsigned line, col;   /* its line and column */
	pos_table *pos;
	bool oom;
	/* attribute texts a name may not hold (CM0007), found as each start
	 * tag is built (its attributes still in the cache) and reported only
	 * when the document is valid: the first problem of each element, the
	 * first MAX_TEXT_PROBLEMS in document order */
	struct text_problem {
		const xmlNode *el;
		const xmlAttr *a;
		const char *why;
	} problems[100];
	size_t n_problems;
	bool text_bad;
} err_ctx;
#define MAX_TEXT_PROBLEMS (sizeof ((err_ctx *)0)->problems / sizeof ((err_ctx *)0)->problems[0])

static const xml_pos *node_pos(const void *node, const xmlDoc *doc);
static unsigned attr_col_in_message(const xmlNode *n, const char *msg, unsigned *line);

static void on_error(void *data, xmlErrorPtr e)
{
	err_ctx *c = data;
	if (!e || e->level == XML_ERR_NONE)
		return;
	if (e->level != XML_ERR_WARNING)
		c->errors++;
	if (++c->count > 100)
		return; /* a broken file can raise thousands; the first ones tell */
	cm_severity sev = e->level == XML_ERR_WARNING ? CM_SEV_WARNING : CM_SEV_ERROR;
	char msg[512];
	snprintf(msg, sizeof msg, "%s", e->message ? e->message : "xml error");
	size_t n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	/* libxml2 writes sentences ("Element 'x': The attribute ... missing.");
	 * house style is lowercase clauses without a full stop */
	if (n && msg[n - 1] == '.')
		msg[--n] = '\0';
	for (size_t i = 0; i < n; i++) {
		int start = i == 0 || (i >= 2 && msg[i - 2] == ':' && msg[i - 1] == ' ');
		if (start && msg[i] >= 'A' && msg[i] <= 'Z' && !(msg[i + 1] >= 'A' && msg[i + 1] <= 'Z'))
			msg[i] = (char)(msg[i] - 'A' + 'a');
	}
	unsigned line = e->line > 0 ? (unsigned)e->line : 0;
	unsigned col = e->int2 > 0 && c->rule && strcmp(c->rule, "CM0001") == 0 ? (unsigned)e->int2 : 0;
	/* a schema error names its element (e->node): the recorded position
	 * holds past line 65535, where e->line is clamped; when the message
	 * names an attribute, line and column are that attribute's, else the
	 * element's '<' */
	const xmlNode *en = e->node;
	if (c->rule && strcmp(c->rule, "CM0002") == 0 && en && en->type == XML_ELEMENT_NODE) {
		const xml_pos *p = node_pos(en, en->doc);
		if (p) {
			line = p->line;
			col = p->col;
			unsigned al = 0, ac = attr_col_in_message(en, msg, &al);
			if (ac) {
				line = al;
				col = ac;
			}
		}
	}
	cm_diags_add(c->d, sev, c->rule, c->file, line, col, NULL, "%s", msg);
}

/* Moves the cursor of c forward to offset to, counting lines and
 * characters (a UTF-8 continuation byte is no character of its own). */
static void advance(err_ctx *c, size_t to)
{
	/* line by line (memchr): only the characters after the last newline
	 * count for the column */
	const char *nl;
	while (c->at < to && (nl = memchr(c->buf + c->at, '\n', to - c->at)) != NULL) {
		c->line++;
		c->col = 1;
		c->at = (size_t)(nl - c->buf) + 1;
	}
	for (; c->at < to; c->at++)
		if (((unsigned char)c->buf[c->at] & 0xC0) != 0x80)
			c->col++;
	/* at a continuation byte the column is its lead byte's: not reached,
	 * positions are taken at ASCII markup only */
}

static size_t record(err_ctx *c, void **slot)
{
	pos_table *t = c->pos;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		xml_pos *nv = realloc(t->v, cap * sizeof *nv);
		if (!nv) {
			c->oom = true;
			return 0;
		}
		t->v = nv;
		t->cap = cap;
	}
	t->v[t->n] = (xml_pos){ c->line, c->col, 0, 0 };
	*slot = (void *)(uintptr_t)++t->n;
	return t->n;
}

static bool xml_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* What a name may not hold in text v (cm_text_problem), NULL when it is
 * clean; plain printable ASCII, nearly every value, is passed on sight. */
static const char *text_problem(const xmlChar *v)
{
	const xmlChar *p = v;
	while (*p >= 0x20 && *p < 0x7F)
		p++;
	return *p ? cm_text_problem((const char *)v) : NULL;
}

/* Notes in c the first attribute of the new element n whose value a name
 * may not hold (reported by report_texts once the document is valid). */
static void check_texts(err_ctx *c, const xmlNode *n)
{
	for (const xmlAttr *a = n->properties; a; a = a->next) {
		/* a value of one text node read in place (most), else gathered */
		const xmlNode *t = a->children;
		bool direct = t && !t->next && t->type == XML_TEXT_NODE && t->content;
		xmlChar *v = direct ? t->content : xmlNodeListGetString(n->doc, a->children, 1);
		const char *why = v ? text_problem(v) : NULL;
		if (!direct)
			xmlFree(v);
		if (why) {
			c->text_bad = true;
			if (c->n_problems < MAX_TEXT_PROBLEMS)
				c->problems[c->n_problems++] = (struct text_problem){ n, a, why };
			return;
		}
	}
}

/* Appends n, a child of the root, to the table's list (cm_xml_top). */
static void add_top(err_ctx *c, xmlNode *n)
{
	pos_table *t = c->pos;
	if (cm_grow((void **)&t->top, &t->cap_top, t->n_top, sizeof *t->top)) {
		c->oom = true;
		return;
	}
	t->top[t->n_top++] = (cm_xml_top){ n, (const char *)n->name };
}

/* SAX2 start of an element: builds the node as libxml2 does, checks its
 * attribute values (check_texts), then records where its start tag and
 * each of its attributes begin. The parser stands at the tag's closing
 * '>' or "/>"; the tag began at the last '<' before it (an attribute value
 * holds no raw '<'). */
static void start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                          int nb_ns, const xmlChar **ns, int nb_attr, int nb_def, const xmlChar **attrs)
{
	xmlParserCtxt *ctxt = ctx;
	err_ctx *c = ctxt->_private;
	const xmlNode *parent = ctxt->node;
	xmlSAX2StartElementNs(ctx, localname, prefix, uri, nb_ns, ns, nb_attr, nb_def, attrs);
	xmlNode *n = ctxt->node;
	/* a new node is pushed before its attributes are added: when the
	 * node is the parent still, none was made (out of memory) */
	if (n && n != parent && n->type == XML_ELEMENT_NODE) {
		if (n->properties)
			check_texts(c, n);
		if (ctxt->nodeNr == 2 && c->pos)
			add_top(c, n);
	}
	xmlParserInput *in = ctxt->input;
	if (!c->pos || c->oom || !n || n->type != XML_ELEMENT_NODE || n->_private || !in || !in->buf ||
	    in->buf->encoder || !xmlStrEqual(n->name, localname) || in->cur < in->base)
		return; /* converted text (another encoding): libxml2's lines only */
	size_t end = (size_t)in->consumed + (size_t)(in->cur - in->base);
	if (end >= c->len || (c->buf[end] != '>' && c->buf[end] != '/') || end < c->at)
		return;
	size_t lt = end;
	while (lt > c->at && c->buf[lt] != '<')
		lt--;
	if (c->buf[lt] != '<')
		return;
	advance(c, lt);
	if (!record(c, &n->_private))
		return;
	/* the attributes in document order; namespace declarations are no
	 * xmlAttr; libxml2 adds defaulted ones (none without a DTD) last */
	const char *b = c->buf;
	size_t p = lt + 1;
	while (p < end && !xml_space(b[p]))
		p++;
	xmlAttr *a = n->properties;
	while (a && p < end) {
		while (p < end && xml_space(b[p]))
			p++;
		size_t s = p;
		while (p < end && b[p] != '=' && !xml_space(b[p]))
			p++;
		size_t e = p;
		while (p < end && b[p] != '"' && b[p] != '\'')
			p++;
		if (p >= end || e == s)
			break;
		char q = b[p++];
		while (p < end && b[p] != q)
			p++;
		p++;
		size_t nl = e - s;
		if ((nl == 5 || (nl > 5 && b[s + 5] == ':')) && memcmp(b + s, "xmlns", 5) == 0)
			continue;
		const char *colon = memchr(b + s, ':', nl);
		size_t ls = colon ? (size_t)(colon - b) + 1 : s;
		if (strlen((const char *)a->name) != e - ls || memcmp(a->name, b + ls, e - ls) != 0)
			break; /* not the text libxml2 read: no more attribute positions */
		advance(c, s);
		if (!record(c, &a->_private))
			return;
		a = a->next;
	}
	if (c->buf[end] == '>') {
		advance(c, end + 1);
		xml_pos *ep = &c->pos->v[(uintptr_t)n->_private - 1];
		ep->cline = c->line;
		ep->ccol = c->col;
	}
}

static const xml_pos *node_pos(const void *node, const xmlDoc *doc)
{
	const pos_table *t = doc ? doc->_private : NULL;
	/* _private is the first member after the type in every node struct
	 * that carries one; read through the right type */
	uintptr_t i = 0;
	if (node && ((const xmlNode *)node)->type == XML_ATTRIBUTE_NODE)
		i = (uintptr_t)((const xmlAttr *)node)->_private;
	else if (node)
		i = (uintptr_t)((const xmlNode *)node)->_private;
	return t && i > 0 && i <= t->n ? &t->v[i - 1] : NULL;
}

/* A schema message about an attribute starts "element 'x', attribute 'y':"
 * (lowercased by on_error): the column of y in element n, *line its line;
 * 0 when the message names none or its position is unknown. */
static unsigned attr_col_in_message(const xmlNode *n, const char *msg, unsigned *line)
{
	const char *k = strstr(msg, "attribute '");
	const char *colon = strchr(msg, ':');
	if (!k || !colon || k > colon)
		return 0;
	k += strlen("attribute '");
	const char *e = strchr(k, '\'');
	if (!e)
		return 0;
	/* a qualified name {ns}local: the local part */
	const char *brace = memchr(k, '}', (size_t)(e - k));
	if (brace)
		k = brace + 1;
	for (const xmlAttr *a = n->properties; a; a = a->next)
		if (strlen((const char *)a->name) == (size_t)(e - k) && memcmp(a->name, k, (size_t)(e - k)) == 0) {
			const xml_pos *p = node_pos(a, n->doc);
			if (!p)
				return 0;
			*line = p->line;
			return p->col;
		}
	return 0;
}

static const cm_embedded_schema *find_schema(const char *name)
{
	for (const cm_embedded_schema *s = cm_embedded_schemas; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

/* The embedded schemas, each compiled once per process on the default
 * allocator and shared by every validation after
 * (a compiled schema is only read by validation; the parse alone took as
 * long as validating a small file). */
static struct {
	const cm_embedded_schema *es;
	xmlSchema *s;
} schemas[8];
static pthread_mutex_t schemas_lock = PTHREAD_MUTEX_INITIALIZER;

static xmlSchema *schema_get(const cm_embedded_schema *es, err_ctx *pcx, bool *own)
{
	xmlSchema *s = NULL;
	*own = false;
	pthread_mutex_lock(&schemas_lock);
	size_t i = 0;
	while (i < sizeof schemas / sizeof schemas[0] && schemas[i].es && schemas[i].es != es)
		i++;
	if (i < sizeof schemas / sizeof schemas[0] && schemas[i].es == es) {
		s = schemas[i].s;
	} else {
		xmlSchemaParserCtxt *pc = xmlSchemaNewMemParserCtxt((const char *)es->data, (int)es->size);
		if (pc) {
			xmlSetStructuredErrorFunc(pcx, on_error);
			s = xmlSchemaParse(pc);
			xmlSchemaFreeParserCtxt(pc);
		}
		if (s && i < sizeof schemas / sizeof schemas[0]) {
			schemas[i].es = es;
			schemas[i].s = s;
		} else {
			*own = s != NULL; /* a full table: for this time only */
		}
		xmlResetLastError();
	}
	pthread_mutex_unlock(&schemas_lock);
	return s;
}

static int validate(xmlDoc *doc, const char *file, const char *schema, cm_diags *d)
{
	const cm_embedded_schema *es = find_schema(schema);
	if (!es) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, file, 0, 0, NULL, "internal: no schema %s", schema);
		return CM_EINTERNAL;
	}
	int rc = CM_EINTERNAL;
	xmlSchemaValidCtxt *vc = NULL;
	err_ctx pcx = { .d = d, .file = file };
	bool own;
	xmlSchema *s = schema_get(es, &pcx, &own);
	if (!s) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, file, 0, 0, NULL, "internal: schema %s does not load", schema);
		goto out;
	}
	vc = xmlSchemaNewValidCtxt(s);
	if (!vc)
		goto out;
	err_ctx c = { .d = d, .file = file, .rule = "CM0002" };
	xmlSetStructuredErrorFunc(&c, on_error);
	xmlSchemaSetValidStructuredErrors(vc, on_error, &c);
	int v = xmlSchemaValidateDoc(vc, doc);
	rc = v == 0 ? 0 : CM_EINVAL;
	if (v != 0 && c.count == 0)
		cm_diags_add(d, CM_SEV_ERROR, "CM0002", file, 0, 0, NULL, "document does not follow %s", schema);
out:
	xmlSchemaFreeValidCtxt(vc);
	if (own)
		xmlSchemaFree(s);
	return rc;
}

/* SAX handler for a DOCTYPE, called before its internal subset is read:
 * stop the parse there, so that no entity or parameter entity of a hostile
 * subset is ever declared, resolved or expanded, and the only diagnostic is
 * CM0003 (not a cascade of entity errors that hides the cause). */
static void refuse_doctype(void *ctx, const xmlChar *name, const xmlChar *ext_id, const xmlChar *sys_id)
{
	(void)name;
	(void)ext_id;
	(void)sys_id;
	xmlParserCtxt *ctxt = ctx;
	((err_ctx *)ctxt->_private)->doctype = 1;
	xmlStopParser(ctxt);
}

/* Line of the DOCTYPE in buf: libxml2 gives a DTD node the line of the node
 * before it, or none. Comments are skipped, so a DOCTYPE named inside one
 * is not taken. 0 when not found. */
static unsigned doctype_line(const char *buf, size_t len)
{
	unsigned line = 1;
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			line++;
		} else if (len - i >= 4 && memcmp(buf + i, "<!--", 4) == 0) {
			for (i += 4; i < len && !(len - i >= 3 && memcmp(buf + i, "-->", 3) == 0); i++)
				line += buf[i] == '\n';
		} else if (len - i >= 9 && memcmp(buf + i, "<!DOCTYPE", 9) == 0) {
			return line;
		}
	}
	return 0;
}

/* Most attributes one element may carry: carcamap's formats use about ten.
 * libxml2 2.9 checks each new attribute against all earlier ones of the
 * element, so an element with n attributes costs n*n: 200000 attributes
 * (2 MB) parse for minutes. */
#define MAX_ATTRIBUTES 64
#define CM_STR_(x) #x
#define CM_XSTR(x) CM_STR_(x)
/* Most namespace declarations in scope at once: libxml2 looks a prefix up
 * through every declaration in scope, so 250 nested elements of 60
 * declarations each (3.6 MB) parse for a minute. The formats use one or
 * two (xsi). */
#define MAX_NAMESPACES 64
/* Nesting the pre-pass follows; deeper documents fail in libxml2 (256). */
#define SCAN_DEPTH 1024

/* Skips from p (inside buf..end) past the terminator term; end if absent. */
static const char *skip_past(const char *p, const char *end, const char *term)
{
	size_t n = strlen(term);
	for (; (size_t)(end - p) >= n; p++)
		if (memcmp(p, term, n) == 0)
			return p + n;
	return end;
}

/* True when the attribute name ending just before eq (spaces allowed) is
 * xmlns or xmlns:prefix. */
static bool names_namespace(const char *tag, const char *eq)
{
	const char *e = eq;
	while (e > tag && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		e--;
	const char *b = e;
	while (b > tag && b[-1] != ' ' && b[-1] != '\t' && b[-1] != '\n' && b[-1] != '\r' && b[-1] != '"' &&
	       b[-1] != '\'' && b[-1] != '<')
		b--;
	size_t n = (size_t)(e - b);
	return n >= 5 && memcmp(b, "xmlns", 5) == 0 && (n == 5 || b[5] == ':');
}

/* The first tag with more than MAX_ATTRIBUTES attributes, or that brings
 * the namespace declarations in scope past MAX_NAMESPACES: its line, 0 if
 * none, *what saying which limit. A cheap pre-pass over the text, exact
 * for well-formed XML: outside comments, processing instructions and
 * CDATA every '<' opens markup, inside a tag every '=' outside a quoted
 * value belongs to one attribute, and "</" closes an element. */
/* The newlines in p..e (memchr: long lines cost little). */
static unsigned count_newlines(const char *p, const char *e)
{
	unsigned n = 0;
	while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

/* The bytes of a tag too_many_attributes stops at outside a quoted value. */
static const unsigned char in_tag_special[256] = {
	['\n'] = 1, ['"'] = 1, ['\''] = 1, ['='] = 1, ['<'] = 1, ['>'] = 1,
};

static unsigned too_many_attributes(const char *buf, size_t len, const char **what)
{
	const char *p = buf, *end = buf + len;
	unsigned line = 1;
	unsigned *ns = calloc(SCAN_DEPTH, sizeof *ns); /* declarations per open element */
	unsigned depth = 0, in_scope = 0, found = 0;
	if (!ns)
		return 0; /* the parse itself then runs out of memory */
	while (p < end && !found) {
		const char *lt = memchr(p, '<', (size_t)(end - p));
		if (!lt)
			break;
		line += count_newlines(p, lt);
		p = lt;
		const char *next;
		if (end - p >= 4 && memcmp(p, "<!--", 4) == 0)
			next = skip_past(p + 4, end, "-->");
		else if (end - p >= 9 && memcmp(p, "<![CDATA[", 9) == 0)
			next = skip_past(p + 9, end, "]]>");
		else if (end - p >= 2 && (p[1] == '?' || p[1] == '!'))
			next = skip_past(p + 2, end, p[1] == '?' ? "?>" : ">");
		else
			next = NULL;
		if (next) {
			line += count_newlines(p, next);
			p = next;
			continue;
		}
		bool closing = end - p >= 2 && p[1] == '/';
		unsigned n = 0, n_ns = 0, tag_line = line;
		const char *tag = p;
		char quote = 0;
		/* to the tag's end ('>' or '<' outside a quoted value), by runs
		 * of bytes that change nothing */
		for (p++; p < end; p++) {
			if (quote) {
				while (p < end && *p != quote && *p != '\n')
					p++;
				if (p >= end)
					break;
				if (*p == '\n')
					line++;
				else
					quote = 0;
				continue;
			}
			while (p < end && !in_tag_special[(unsigned char)*p])
				p++;
			if (p >= end || *p == '>' || *p == '<')
				break;
			if (*p == '\n') {
				line++;
			} else if (*p == '"' || *p == '\'') {
				quote = *p;
			} else { /* '=' */
				if (++n > MAX_ATTRIBUTES) {
					*what = "an element has more than " CM_XSTR(MAX_ATTRIBUTES) " attributes";
					found = tag_line;
					break;
				}
				if (names_namespace(tag, p) && ++n_ns + in_scope > MAX_NAMESPACES) {
					*what = "more than " CM_XSTR(MAX_NAMESPACES) " namespace declarations in scope";
					found = tag_line;
					break;
				}
			}
		}
		if (found)
			break;
		bool empty = p > tag && p < end && *p == '>' && p[-1] == '/';
		if (closing) {
			if (depth > 0) {
				depth--;
				if (depth < SCAN_DEPTH)
					in_scope -= ns[depth];
			}
		} else if (!empty) {
			if (depth < SCAN_DEPTH) {
				ns[depth] = n_ns;
				in_scope += n_ns;
			}
			depth++;
		}
	}
	free(ns);
	return found;
}

/* Every attribute value of the document is text a name may hold
 * (cm_text_problem): XML allows C1 controls, bidi overrides and, as
 * character references, tabs and newlines. Reports what check_texts found
 * during the parse, the first problem of each element in document order
 * (CM0007, at most MAX_TEXT_PROBLEMS); false when there was one. */
static bool report_texts(const err_ctx *c, const char *file, cm_diags *d)
{
	for (size_t i = 0; i < c->n_problems; i++) {
		const struct text_problem *p = &c->problems[i];
		unsigned col, line = cm_xml_attr_pos(p->el, (const char *)p->a->name, &col);
		cm_diags_check(d, "CM0007", file, line, col, NULL, "attribute %s of <%s> holds %s",
		               (const char *)p->a->name, (const char *)p->el->name, p->why);
	}
	return !c->text_bad;
}

int cm_xml_load_memory(const char *buf, size_t len, const char *file, const char *schema,
                       cm_diags *d, xmlDoc **out)
{
	return cm_xml_load_memory_checked(buf, len, file, schema, NULL, d, out);
}

int cm_xml_load_memory_checked(const char *buf, size_t len, const char *file, const char *schema,
                               cm_xml_precheck check, cm_diags *d, xmlDoc **out)
{
	*out = NULL;
	if (len > CM_MAX_INPUT_BYTES || len > 0x7fffffffu) {
		cm_diags_check(d, "CM0004", file, 0, 0, NULL, "xml file is larger than %u bytes",
		               CM_MAX_INPUT_BYTES);
		return CM_EINVAL;
	}
	const char *what = NULL;
	unsigned crowded = too_many_attributes(buf, len, &what);
	if (crowded) {
		cm_diags_check(d, "CM0004", file, crowded, 0, NULL, "%s", what);
		return CM_EINVAL;
	}
	int crc = check ? check(buf, len, file, d) : 0;
	if (crc)
		return crc;
	pos_table *pos = calloc(1, sizeof *pos);
	if (!pos)
		return CM_ENOMEM;
	pthread_once(&init_once, parser_init);
	xmlParserCtxt *ctxt = xmlNewParserCtxt();
	if (!ctxt) {
		pos_free(pos);
		return CM_ENOMEM;
	}
	err_ctx c = { .d = d, .file = file, .rule = "CM0001", .buf = buf, .len = len,
	              .line = 1, .col = 1, .pos = pos };
	/* libxml2 2.9 has no per-context structured handler: set the
	 * (thread-local) global one for the duration of the parse. */
	xmlSetStructuredErrorFunc(&c, on_error);
	ctxt->_private = &c;
	ctxt->sax->internalSubset = refuse_doctype;
	ctxt->sax->startElementNs = start_element;
	/* NONET: never fetch; no NOENT/DTDLOAD/DTDATTR: entities stay unexpanded
	 * and no external subset is read. NONET also blocks file:// DTDs. */
	/* BIG_LINES: node lines past 65535 are kept, not clamped */
	int opts = XML_PARSE_NONET | XML_PARSE_NOCDATA | XML_PARSE_NOBLANKS | XML_PARSE_BIG_LINES | XML_PARSE_COMPACT;
	xmlDoc *doc = xmlCtxtReadMemory(ctxt, buf, (int)len, file, NULL, opts);
	int rc = 0;
	if (c.doctype || (doc && (doc->intSubset || doc->extSubset))) {
		cm_diags_check(d, "CM0003", file, doctype_line(buf, len), 0, NULL,
		               "document type declarations are not allowed");
		rc = CM_EINVAL;
		goto out;
	}
	/* a namespace error (an undeclared prefix) leaves wellFormed set but
	 * is reported as an error: a document with any error is refused */
	if (!doc || !ctxt->wellFormed || !ctxt->nsWellFormed || c.errors) {
		if (c.count == 0)
			cm_diags_check(d, "CM0001", file, 0, 0, NULL, "not well-formed xml");
		rc = CM_EINVAL;
		goto out;
	}
	if (!xmlDocGetRootElement(doc)) {
		cm_diags_check(d, "CM0001", file, 0, 0, NULL, "document has no root element");
		rc = CM_EINVAL;
		goto out;
	}
	if (c.oom) {
		rc = CM_ENOMEM;
		goto out;
	}
	doc->_private = pos; /* the positions live as long as the tree */
	pos = NULL;
	if (schema)
		rc = validate(doc, file, schema, d);
	if (!rc && !report_texts(&c, file, d))
		rc = CM_EINVAL;
out:
	xmlSetStructuredErrorFunc(NULL, NULL);
	xmlFreeParserCtxt(ctxt);
	pos_free(pos);
	if (rc && doc) {
		pos_free(doc->_private);
		xmlFreeDoc(doc);
	}
	/* libxml2's last error (thread-global) would keep its strings */
	xmlResetLastError();
	if (rc)
		return rc;
	*out = doc;
	return 0;
}

/* "a legend" for "legend.xsd" and so on. */
static const char *kind_of_schema(const char *schema)
{
	return strcmp(schema, "map.xsd") == 0 ? "a map descriptor"
	       : strcmp(schema, "tileset.xsd") == 0 ? "a tile set"
	       : strcmp(schema, "legend.xsd") == 0 ? "a legend"
	                                           : "a carcamap file";
}

const char *cm_xml_other_kind(const char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)buf;
	if ((len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) ||
	    (len >= 4 && ((u[0] == '<' && u[1] == 0 && u[2] == '?' && u[3] == 0) ||
	                  (u[0] == 0 && u[1] == '<' && u[2] == 0 && u[3] == '?'))))
		return "UTF-16 text (carcamap reads XML in UTF-8 only: convert it, e.g. with iconv -f UTF-16 -t UTF-8)";
	if (cm__sqlite_signature(buf, len))
		return "an SQLite database (a carcamap pack?)";
	if (len >= 8 && memcmp(buf, "\x89PNG\r\n\x1a\n", 8) == 0)
		return "a PNG image";
	char root[64];
	if (cm_xml_root_name(buf, len, root, sizeof root) != 0)
		return NULL;
	if (strcmp(root, "tileset") == 0)
		return "a tile set";
	if (strcmp(root, "map") == 0)
		return "a map descriptor";
	if (strcmp(root, "legend") == 0)
		return "a legend";
	return "XML of another kind";
}

/* What the file is when it is not of the schema's kind; NULL when it is,
 * or when it is no XML the cheap scan recognises (the parser says why). */
static const char *other_kind(const char *buf, size_t len, const char *schema)
{
	const char *k = cm_xml_other_kind(buf, len);
	return k && strcmp(k, kind_of_schema(schema)) != 0 ? k : NULL;
}

int cm_xml_load_file(const char *path, const char *schema, cm_diags *d, xmlDoc **out)
{
	return cm_xml_load_file_checked(path, schema, NULL, d, out);
}

int cm_xml_load_file_checked(const char *path, const char *schema, cm_xml_precheck check, cm_diags *d,
                             xmlDoc **out)
{
	char *buf;
	size_t len;
	*out = NULL;
	int rc = cm_read_file(path, CM_MAX_INPUT_BYTES, d, &buf, &len);
	if (rc)
		return rc;
	/* A file of another kind (a map named as a legend, a PNG, a pack,
	 * UTF-16) is refused by its kind alone: the parser's messages would
	 * show its element names and bytes. */
	const char *other = schema ? other_kind(buf, len, schema) : NULL;
	if (other) {
		cm_diags_check(d, "CM0005", path, 0, 0, NULL, "not %s: it is %s", kind_of_schema(schema),
		               other);
		free(buf);
		return CM_EFORMAT;
	}
	/* Quote source lines only from a file of the expected kind: a map that
	 * names /etc/passwd as its legend or as a half must not make the
	 * diagnostics show that file's lines. */
	char root[64];
	size_t n;
	bool kept = false;
	if (!schema || (cm_xml_root_name(buf, len, root, sizeof root) == 0 && (n = strlen(root)) > 0 &&
	                strncmp(schema, root, n) == 0 && strcmp(schema + n, ".xsd") == 0))
		(void)cm__diags_take_source(d, path, buf, len, &kept); /* the text read, not a copy */
	rc = cm_xml_load_memory_checked(buf, len, path, schema, check, d, out);
	if (!kept)
		free(buf);
	return rc;
}

/* The root element's name: [*ns, *ne) (prefix included), in text. */
static int find_root(const char *text, size_t len, const char **ns, const char **ne)
{
	/* Skip BOM, declaration, comments, processing instructions and space;
	 * take the first start tag's local name. No parser: cheap and safe. */
	const char *p = text, *end = text + len;
	if (len >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
		p += 3;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		if (p >= end || *p != '<')
			return CM_EFORMAT;
		if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
			const char *q = p + 4;
			while (q + 2 < end && memcmp(q, "-->", 3) != 0)
				q++;
			if (q + 2 >= end)
				return CM_EFORMAT;
			p = q + 3;
			continue;
		}
		if (end - p >= 2 && (p[1] == '?' || p[1] == '!')) {
			/* a DOCTYPE's internal subset [...] holds '>' of its own: skip
			 * it whole, so that such files are still recognised (and then
			 * refused with CM0003 rather than called unknown) */
			const char *q = p;
			int depth = 0;
			while (q < end && (*q != '>' || depth > 0)) {
				depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
				q++;
			}
			if (q >= end)
				return CM_EFORMAT;
			p = q + 1;
			continue;
		}
		p++;
		const char *s = p;
		while (p < end && *p != ' ' && *p != '>' && *p != '/' && *p != '\t' && *p != '\r' && *p != '\n')
			p++;
		*ns = s;
		*ne = p;
		return 0;
	}
	return CM_EFORMAT;
}

int cm_xml_root_name(const char *text, size_t len, char *buf, size_t size)
{
	const char *s, *p;
	if (find_root(text, len, &s, &p))
		return CM_EFORMAT;
	const char *colon = memchr(s, ':', (size_t)(p - s));
	if (colon)
		s = colon + 1;
	size_t n = (size_t)(p - s);
	if (n == 0 || n + 1 > size)
		return CM_EFORMAT;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

bool cm_xml_root_has_attr(const char *text, size_t len, const char *attr)
{
	const char *s, *p, *end = text + len;
	size_t an = strlen(attr);
	if (find_root(text, len, &s, &p))
		return false;
	/* attribute names up to the end of the start tag; values skipped */
	while (p < end && *p != '>') {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		const char *nm = p;
		while (p < end && *p != '=' && *p != ' ' && *p != '>' && *p != '\t' && *p != '\r' && *p != '\n' && *p != '/')
			p++;
		if ((size_t)(p - nm) == an && memcmp(nm, attr, an) == 0)
			return true;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		if (p < end && *p == '=') {
			p++;
			while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
				p++;
			if (p < end && (*p == '"' || *p == '\'')) {
				char q = *p++;
				while (p < end && *p != q)
					p++;
				p++;
			}
		} else if (p < end && *p != '>') {
			p++;
		}
	}
	return false;
}

/* The value of n's attribute name (no namespace), as xmlGetNoNsProp gives
 * it, read in place when it is one text node (most): *found false when n
 * has no such attribute; NULL with *found true when the value must be put
 * together (xmlGetNoNsProp then). The trees here come from
 * cm_xml_load_memory: no DTD, so no defaulted attributes. */
static const xmlChar *attr_in_place(const xmlNode *n, const char *name, bool *found)
{
	*found = false;
	if (!n || n->type != XML_ELEMENT_NODE || (n->doc && n->doc->intSubset)) {
		*found = true; /* the general way */
		return NULL;
	}
	/* the first byte tested here: most names differ in it, and a call
	 * per attribute was half the cost of a look-up */
	for (const xmlAttr *a = n->properties; a; a = a->next)
		if (a->name && a->name[0] == (xmlChar)name[0] && !a->ns && strcmp((const char *)a->name, name) == 0) {
			*found = true;
			const xmlNode *t = a->children;
			if (!t)
				return (const xmlChar *)"";
			if (!t->next && (t->type == XML_TEXT_NODE || t->type == XML_CDATA_SECTION_NODE) && t->content)
				return t->content;
			return NULL;
		}
	return NULL;
}

bool cm_xml_has_attr(const xmlNode *n, const char *name)
{
	/* the look-up of xmlGetNoNsProp */
	return n && xmlHasNsProp(n, (const xmlChar *)name, NULL) != NULL;
}

char *cm_xml_attr_found(const xmlNode *n, const char *name, bool *found)
{
	const xmlChar *in = attr_in_place(n, name, found);
	if (!*found)
		return NULL;
	if (in)
		return cm_strdup((const char *)in);
	xmlChar *v = xmlGetNoNsProp((xmlNode *)n, (const xmlChar *)name);
	if (!v) {
		*found = cm_xml_has_attr(n, name);
		return NULL;
	}
	char *s = cm_strdup((const char *)v);
	xmlFree(v);
	return s;
}

char *cm_xml_attr(const xmlNode *n, const char *name)
{
	bool found;
	return cm_xml_attr_found(n, name, &found);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

size_t cm_xml_next_token(const char **p, const char **tok)
{
	const char *s = *p;
	while (is_space(*s))
		s++;
	const char *e = s;
	while (*e && !is_space(*e))
		e++;
	*tok = s;
	*p = e;
	return (size_t)(e - s);
}

char *cm_xml_attr_token(const xmlNode *n, const char *name)
{
	bool found;
	const xmlChar *in = attr_in_place(n, name, &found);
	if (!found)
		return NULL;
	xmlChar *v = in ? NULL : xmlGetNoNsProp((xmlNode *)n, (const xmlChar *)name);
	if (!in && !v)
		return NULL;
	const char *start = in ? (const char *)in : (const char *)v;
	while (is_space(*start))
		start++;
	size_t len = strlen(start);
	while (len && is_space(start[len - 1]))
		len--;
	char *s = cm_strndup(start, len);
	xmlFree(v);
	return s;
}

int cm_xml_attr_int(const xmlNode *n, const char *name, int dflt)
{
	bool found;
	const xmlChar *in = attr_in_place(n, name, &found);
	if (!found)
		return dflt;
	if (in) {
		long long x = strtoll((const char *)in, NULL, 10);
		return x > INT_MAX ? INT_MAX : x < INT_MIN ? INT_MIN : (int)x;
	}
	xmlChar *v = xmlGetNoNsProp((xmlNode *)n, (const xmlChar *)name);
	if (!v)
		return dflt;
	long long x = strtoll((const char *)v, NULL, 10);
	xmlFree(v);
	return x > INT_MAX ? INT_MAX : x < INT_MIN ? INT_MIN : (int)x;
}

bool cm_xml_attr_bool(const xmlNode *n, const char *name, bool dflt)
{
	char *v = cm_xml_attr_token(n, name);
	if (!v)
		return dflt;
	bool b = strcmp(v, "true") == 0 || strcmp(v, "1") == 0;
	free(v);
	return b;
}

struct cm_xw {
	xmlBufferPtr buf;
	xmlTextWriterPtr w;
	int err;             /* a writer call failed */
	const char *bad;     /* the attribute (or "text") XML cannot carry */
	bool content;        /* the innermost open element has content */
};

/* XML 1.0 carries UTF-8 with no control character but tab and line breaks. */
static bool xw_text_ok(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
			return false;
	return xmlCheckUTF8((const xmlChar *)s) != 0;
}

static void xw_raw(cm_xw *x, const char *s)
{
	if (xmlTextWriterWriteRaw(x->w, (const xmlChar *)s) < 0)
		x->err = 1;
}

static void xw_indent(cm_xw *x, int depth)
{
	xw_raw(x, "\n");
	for (int i = 0; i < depth; i++)
		xw_raw(x, "  ");
}

cm_xw *cm_xw_new(void)
{
	cm_xw *x = calloc(1, sizeof *x);
	if (!x)
		return NULL;
	x->buf = xmlBufferCreate();
	x->w = x->buf ? xmlNewTextWriterMemory(x->buf, 0) : NULL;
	if (!x->w) {
		if (x->buf)
			xmlBufferFree(x->buf);
		free(x);
		return NULL;
	}
	/* no indentation of the writer's own: layout is cm_xw_open's */
	if (xmlTextWriterStartDocument(x->w, "1.0", "UTF-8", NULL) < 0)
		x->err = 1;
	return x;
}

void cm_xw_open(cm_xw *x, int depth, const char *el)
{
	if (depth > 0)
		xw_indent(x, depth);
	if (xmlTextWriterStartElement(x->w, (const xmlChar *)el) < 0)
		x->err = 1;
	x->content = false;
}

void cm_xw_close(cm_xw *x, int depth)
{
	if (x->content)
		xw_indent(x, depth);
	if (xmlTextWriterEndElement(x->w) < 0)
		x->err = 1;
	x->content = true; /* the parent now has content */
}

void cm_xw_attr(cm_xw *x, const char *name, const char *v)
{
	if (!v)
		return;
	if (!xw_text_ok(v)) {
		if (!x->bad)
			x->bad = name;
	} else if (xmlTextWriterWriteAttribute(x->w, (const xmlChar *)name, (const xmlChar *)v) < 0)
		x->err = 1;
}

void cm_xw_attr_int(cm_xw *x, const char *name, long v)
{
	char b[32];
	snprintf(b, sizeof b, "%ld", v);
	cm_xw_attr(x, name, b);
}

void cm_xw_fail(cm_xw *x)
{
	x->err = 1;
}

void cm_xw_text(cm_xw *x, const char *s)
{
	if (!xw_text_ok(s)) {
		if (!x->bad)
			x->bad = "text";
	} else if (xmlTextWriterWriteString(x->w, (const xmlChar *)s) < 0)
		x->err = 1;
}

int cm_xw_finish(cm_xw *x, FILE *f, const char *file, cm_diags *d)
{
	if (xmlTextWriterEndDocument(x->w) < 0)
		x->err = 1;
	xmlFreeTextWriter(x->w);
	int rc = 0;
	if (x->bad) {
		cm_diags_add(d, CM_SEV_ERROR, NULL, file, 0, 0, NULL,
		             "cannot write XML: %s%s holds a control character or invalid UTF-8", x->bad,
		             strcmp(x->bad, "text") ? " attribute" : "");
		rc = CM_EINVAL;
	} else if (x->err)
		rc = CM_ENOMEM;
	else {
		size_t n = (size_t)xmlBufferLength(x->buf);
		if (fwrite(xmlBufferContent(x->buf), 1, n, f) != n || ferror(f))
			rc = CM_EIO;
	}
	xmlBufferFree(x->buf);
	free(x);
	return rc;
}

void cm_xml_free_doc(xmlDoc *doc)
{
	if (!doc)
		return;
	pos_free(doc->_private);
	doc->_private = NULL;
	xmlFreeDoc(doc);
}

const cm_xml_top *cm_xml_top_elements(const xmlDoc *doc, size_t *n)
{
	const pos_table *t = doc ? doc->_private : NULL;
	*n = t ? t->n_top : 0;
	return t && t->top ? t->top : NULL;
}

unsigned cm_xml_line(const xmlNode *n)
{
	const xml_pos *p = n ? node_pos(n, n->doc) : NULL;
	if (p)
		return p->line;
	long l = n ? xmlGetLineNo((xmlNode *)n) : 0;
	return l > 0 ? (unsigned)l : 0;
}

unsigned cm_xml_col(const xmlNode *n)
{
	const xml_pos *p = n ? node_pos(n, n->doc) : NULL;
	return p ? p->col : 0;
}

unsigned cm_xml_content_pos(const xmlNode *n, unsigned *col)
{
	const xml_pos *p = n ? node_pos(n, n->doc) : NULL;
	*col = p ? p->ccol : 0;
	return p ? p->cline : 0;
}

unsigned cm_xml_attr_pos(const xmlNode *n, const char *name, unsigned *col)
{
	*col = 0;
	if (!n)
		return 0;
	for (const xmlAttr *a = n->properties; a; a = a->next)
		if (strcmp((const char *)a->name, name) == 0) {
			const xml_pos *p = node_pos(a, n->doc);
			if (!p)
				break;
			*col = p->col;
			return p->line;
		}
	return cm_xml_line(n);
}

xmlNode *cm_xml_elem(xmlNode *n)
{
	while (n && n->type != XML_ELEMENT_NODE)
		n = n->next;
	return n;
}

int cm_xml_is(const xmlNode *n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}
