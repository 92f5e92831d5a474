/* SPDX-License-Identifier: MIT */
/* render_text.c: the words of the vector pictures (render_int.h): escaping
 * for XML text and for script data, estimated text widths of a generic
 * sans-serif font, and fitting a label into its square without breaking a
 * word (smaller, on two lines, or shortened with the full text kept), and
 * the growing strings titles are built in. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "export/render_int.h"
#include "base/util_int.h"

/* The code point at *p (advancing), or -1 for a byte that starts no valid
 * UTF-8 sequence (one byte consumed). */
static long next_cp(const unsigned char **p)
{
	const unsigned char *s = *p;
	unsigned c = s[0];
	int n;
	long cp;
	if (c < 0x80) {
		*p = s + 1;
		return c;
	} else if (c >= 0xc2 && c <= 0xdf) {
		n = 1;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 2;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 3;
		cp = c & 0x07;
	} else {
		*p = s + 1;
		return -1;
	}
	for (int i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*p = s + 1;
			return -1;
		}
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
		*p = s + 1;
		return -1;
	}
	*p = s + n + 1;
	return cp;
}

static void put_utf8(FILE *f, long cp)
{
	if (cp < 0x80) {
		fputc((int)cp, f);
	} else if (cp < 0x800) {
		fputc((int)(0xc0 | (cp >> 6)), f);
		fputc((int)(0x80 | (cp & 0x3f)), f);
	} else if (cp < 0x10000) {
		fputc((int)(0xe0 | (cp >> 12)), f);
		fputc((int)(0x80 | ((cp >> 6) & 0x3f)), f);
		fputc((int)(0x80 | (cp & 0x3f)), f);
	} else {
		fputc((int)(0xf0 | (cp >> 18)), f);
		fputc((int)(0x80 | ((cp >> 12) & 0x3f)), f);
		fputc((int)(0x80 | ((cp >> 6) & 0x3f)), f);
		fputc((int)(0x80 | (cp & 0x3f)), f);
	}
}

void cm__put_xml(FILE *f, const char *s)
{
	if (!s)
		return;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		long cp = next_cp(&p);
		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (cp < 0)
				put_utf8(f, 0xfffd);
			else if (cp < 0x20)
				put_utf8(f, 0x2400 + cp); /* a visible control picture */
			else if (cp == 0x7f)
				put_utf8(f, 0x2421);
			else if ((cp >= 0x80 && cp < 0xa0) || cp == 0xfffe || cp == 0xffff)
				put_utf8(f, 0xfffd); /* not allowed or discouraged in XML */
			else
				put_utf8(f, cp);
		}
	}
}

char *cm__utf8_clean(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	char *out = malloc(3 * n + 1), *q = out; /* a byte becomes at most 3 */
	if (!out)
		return NULL;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		long cp = next_cp(&p);
		if (cp < 0 || (cp >= 0x80 && cp < 0xa0) || cp == 0xfffe || cp == 0xffff)
			cp = 0xfffd;
		else if (cp < 0x20)
			cp = 0x2400 + cp;
		else if (cp == 0x7f)
			cp = 0x2421;
		if (cp < 0x80) {
			*q++ = (char)cp;
		} else if (cp < 0x800) {
			*q++ = (char)(0xc0 | (cp >> 6));
			*q++ = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			*q++ = (char)(0xe0 | (cp >> 12));
			*q++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*q++ = (char)(0x80 | (cp & 0x3f));
		} else {
			*q++ = (char)(0xf0 | (cp >> 18));
			*q++ = (char)(0x80 | ((cp >> 12) & 0x3f));
			*q++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*q++ = (char)(0x80 | (cp & 0x3f));
		}
	}
	*q = '\0';
	return out;
}

void cm__put_js(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		long cp = next_cp(&p);
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (int)cp);
		else if (cp < 0)
			fputs("\\ufffd", f);
		else if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp == 0x7f || cp == 0x2028 || cp == 0x2029)
			fprintf(f, "\\u%04lx", (unsigned long)cp);
		else
			put_utf8(f, cp);
	}
	fputc('"', f);
}

/* Width of one code point in thousandths of an em, generous for sans-serif
 * fonts (DejaVu Sans is among the widest that `sans-serif` may be). */
static int cp_width(long cp)
{
	if (cp < 0)
		return 700;
	if (cp == ' ')
		return 320;
	if (strchr("iljtfrI.,;:'!|()[]", (int)(cp < 128 ? cp : 'x')) && cp < 128)
		return 360;
	if (cp == 'm' || cp == 'w' || cp == 'M' || cp == 'W')
		return 980;
	if (cp >= 'A' && cp <= 'Z')
		return 740;
	if (cp >= '0' && cp <= '9')
		return 640;
	if (cp < 128)
		return 620;
	if (cp >= 0x2e80)
		return 1000; /* CJK and wider */
	return 680;
}

long cm__text_width(const char *s, int font)
{
	long w = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (p && *p)
		w += cp_width(next_cp(&p));
	return w * font / 10; /* thousandths of an em * font = 1/1000 units; /10: hundredths */
}

void cm__label_clear(cm__label *l)
{
	free(l->line[0]);
	free(l->line[1]);
	memset(l, 0, sizeof *l);
}

static char *dup_n(const char *s, size_t n)
{
	char *r = malloc(n + 1);
	if (r) {
		memcpy(r, s, n);
		r[n] = '\0';
	}
	return r;
}

static int fits(const char *s, size_t n, int font, long width100)
{
	char *t = dup_n(s, n);
	if (!t)
		return 0;
	long w = cm__text_width(t, font);
	free(t);
	return w <= width100;
}

/* The split at a space that makes the longer half shortest, or 0. */
static size_t best_split(const char *s)
{
	size_t n = strlen(s), best = 0;
	long best_w = -1;
	for (size_t i = 1; i + 1 < n; i++) {
		if (s[i] != ' ')
			continue;
		long a = (long)i, b = (long)(n - i - 1);
		long w = a > b ? a : b;
		if (best_w < 0 || w < best_w) {
			best_w = w;
			best = i;
		}
	}
	return best;
}

int cm__label_fit(const char *s, int width, int height, int max_font, int min_font, cm__label *out)
{
	memset(out, 0, sizeof *out);
	long w100 = (long)width * 100;
	size_t n = strlen(s);
	size_t sp = best_split(s);
	for (int font = max_font; font >= min_font; font--) {
		if (fits(s, n, font, w100)) {
			out->font = font;
			out->lines = 1;
			return (out->line[0] = cm_strdup(s)) ? 0 : CM_ENOMEM;
		}
		if (sp && 2 * font + 2 <= height && fits(s, sp, font, w100) && fits(s + sp + 1, n - sp - 1, font, w100)) {
			out->font = font;
			out->lines = 2;
			out->line[0] = dup_n(s, sp);
			out->line[1] = cm_strdup(s + sp + 1);
			return out->line[0] && out->line[1] ? 0 : CM_ENOMEM;
		}
	}
	/* shortened at the smallest size: as many characters as fit and an
	 * ellipsis (not after a space) */
	out->font = min_font;
	out->lines = 1;
	out->abbreviated = 1;
	long ell = cm__text_width("\xe2\x80\xa6", min_font);
	size_t keep = 0, lim = n < 256 ? n : 256; /* a label never needs more: bounded cost */
	for (size_t i = 1; i < lim; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && s[i - 1] != ' ' && fits(s, i, min_font, w100 - ell))
			keep = i;
	if (!keep) /* at least one character */
		for (keep = 1; keep < n && ((unsigned char)s[keep] & 0xc0) == 0x80; keep++)
			;
	char *t = malloc(keep + 4);
	if (!t)
		return CM_ENOMEM;
	memcpy(t, s, keep);
	memcpy(t + keep, "\xe2\x80\xa6", 4);
	out->line[0] = t;
	return 0;
}


void cm__sb_add(cm__sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0 || b->oom)
		return;
	if (b->n + (size_t)k + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 128;
		while (c < b->n + (size_t)k + 1)
			c *= 2;
		char *q = realloc(b->p, c);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = c;
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)k;
}
