/* SPDX-License-Identifier: MIT */
/* diag_ci.c: the diagnostics as CI systems read them (carcamap/diag.h):
 * SARIF 2.1.0 for code scanning (rules with full description and help,
 * percent-encoded artifact URIs, file:// for absolute paths, relative ones
 * against the SRCROOT base id) and GitHub Actions workflow commands. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "carcamap/catalog.h"
#include "carcamap/diag.h"
#include "base/json_int.h"
#include "base/util_int.h"

#define CM_SARIF_NO_CHECK "no-check"
#define CM_INFORMATION_URI "https://github.com/carcamap/carcamap"
#define CM_SRCROOT "SRCROOT"

static const char *sarif_level(cm_severity s)
{
	return s == CM_SEV_ERROR ? "error" : s == CM_SEV_WARNING ? "warning" : "note";
}

static bool has_square(const cm_diag *g)
{
	return g->x >= 0 && g->y >= 0;
}

static void write_square(cm_json *j, const cm_diag *g)
{
	cm_json_arr_begin(j);
	cm_json_int(j, g->x);
	cm_json_int(j, g->y);
	cm_json_arr_end(j);
}

char *cm_uri_from_path(const char *path)
{
	if (!path)
		return NULL;
	/* RFC 3986: unreserved characters and '/' stay, every other byte
	 * (space, '#', '%', '?', non-ASCII, controls) becomes %HH; an
	 * absolute path is a file:// URI with an empty authority */
	size_t n = strlen(path);
	char *out = malloc(n * 3 + 8);
	if (!out)
		return NULL;
	char *o = out;
	if (path[0] == '/') {
		memcpy(o, "file://", 7);
		o += 7;
	}
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		unsigned c = *p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
		    c == '.' || c == '_' || c == '~' || c == '/') {
			*o++ = (char)c;
		} else {
			*o++ = '%';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		}
	}
	*o = '\0';
	return out;
}

static void message(cm_json *j, const char *key, const char *text)
{
	cm_json_key(j, key);
	cm_json_obj_begin(j);
	cm_json_kv_str(j, "text", text);
	cm_json_obj_end(j);
}

/* One reportingDescriptor: id, names, descriptions, help, level. */
static void write_rule(cm_json *j, const char *id, const char *title, const char *fix, const char *game_rule,
                       cm_severity sev)
{
	cm_json_obj_begin(j);
	cm_json_kv_str(j, "id", id);
	message(j, "shortDescription", title);
	char *full = game_rule && *game_rule ? cm_asprintf("%s (rule %s of the game, RULES.md)", title, game_rule)
	                                     : cm_asprintf("%s", title);
	message(j, "fullDescription", full ? full : title);
	free(full);
	message(j, "help", fix);
	cm_json_key(j, "helpUri");
	char *uri = cm_asprintf(CM_INFORMATION_URI "/blob/main/schemas/checks.md#%s", id);
	cm_json_str(j, uri ? uri : CM_INFORMATION_URI);
	free(uri);
	cm_json_key(j, "defaultConfiguration");
	cm_json_obj_begin(j);
	cm_json_kv_str(j, "level", sarif_level(sev));
	cm_json_obj_end(j);
	if (game_rule && *game_rule) {
		cm_json_key(j, "properties");
		cm_json_obj_begin(j);
		cm_json_kv_str(j, "gameRule", game_rule);
		cm_json_obj_end(j);
	}
	cm_json_obj_end(j);
}

int cm_diags_write_sarif(const cm_diags *d, FILE *f)
{
	size_t n = cm_diags_count(d), n_cat = cm_catalog_count();
	/* rules: the catalogue entries the results use, in catalogue order,
	 * then no-check when a failure came from no check; results point at
	 * them by ruleIndex */
	long *index = calloc(n_cat + 1, sizeof *index);
	if (!index)
		return CM_ENOMEM;
	bool no_check = false, relative = false;
	for (size_t i = 0; i < n_cat; i++)
		index[i] = -1;
	for (size_t i = 0; i < n; i++) {
		const cm_diag *g = cm_diags_get(d, i);
		const cm_check_info *ci = g->rule ? cm_catalog_find(g->rule) : NULL;
		if (ci)
			index[ci - cm_catalog_get(0)] = 0;
		else
			no_check = true;
		relative |= g->file && g->file[0] != '/';
	}
	long used = 0;
	for (size_t i = 0; i < n_cat; i++)
		if (index[i] == 0)
			index[i] = used++;
	long no_check_index = used;

	cm_json j;
	cm_json_init(&j, f, true);
	cm_json_obj_begin(&j);
	cm_json_kv_str(&j, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	cm_json_kv_str(&j, "version", "2.1.0");
	cm_json_key(&j, "runs");
	cm_json_arr_begin(&j);
	cm_json_obj_begin(&j);
	cm_json_key(&j, "tool");
	cm_json_obj_begin(&j);
	cm_json_key(&j, "driver");
	cm_json_obj_begin(&j);
	cm_json_kv_str(&j, "name", "carcamap");
	cm_json_kv_str(&j, "version", CM_VERSION_STRING);
	cm_json_kv_str(&j, "informationUri", CM_INFORMATION_URI);
	cm_json_key(&j, "rules");
	cm_json_arr_begin(&j);
	for (size_t i = 0; i < n_cat; i++) {
		const cm_check_info *ci = cm_catalog_get(i);
		if (index[i] >= 0)
			write_rule(&j, ci->id, ci->title, ci->fix, ci->rule, ci->severity);
	}
	if (no_check)
		write_rule(&j, CM_SARIF_NO_CHECK, "input could not be read or written",
		           "check that the file exists, is readable, and that the disk has room", NULL,
		           CM_SEV_ERROR);
	cm_json_arr_end(&j);
	cm_json_obj_end(&j);
	cm_json_obj_end(&j);
	/* columns count characters (code points), as in the text output; the
	 * SARIF default would be UTF-16 code units */
	cm_json_kv_str(&j, "columnKind", "unicodeCodePoints");
	if (relative) {
		/* relative paths are as given, against the directory carcamap ran
		 * in; the consumer (code scanning: the checkout) supplies it */
		cm_json_key(&j, "originalUriBaseIds");
		cm_json_obj_begin(&j);
		cm_json_key(&j, CM_SRCROOT);
		cm_json_obj_begin(&j);
		message(&j, "description", "the directory carcamap ran in (the repository root in CI)");
		cm_json_obj_end(&j);
		cm_json_obj_end(&j);
	}
	cm_json_key(&j, "results");
	cm_json_arr_begin(&j);
	for (size_t i = 0; i < n; i++) {
		const cm_diag *g = cm_diags_get(d, i);
		const cm_check_info *ci = g->rule ? cm_catalog_find(g->rule) : NULL;
		cm_json_obj_begin(&j);
		/* SARIF wants a rule on every result: failures that come from no
		 * check (a file that cannot be read) share one id outside the
		 * catalogue (schemas/check-json.md) */
		cm_json_kv_str(&j, "ruleId", ci ? ci->id : CM_SARIF_NO_CHECK);
		cm_json_kv_int(&j, "ruleIndex", ci ? index[ci - cm_catalog_get(0)] : no_check_index);
		cm_json_kv_str(&j, "level", sarif_level(g->severity));
		message(&j, "message", g->message ? g->message : "(out of memory)");
		if (g->file || g->where || has_square(g)) {
			cm_json_key(&j, "locations");
			cm_json_arr_begin(&j);
			cm_json_obj_begin(&j);
			if (g->file) {
				cm_json_key(&j, "physicalLocation");
				cm_json_obj_begin(&j);
				cm_json_key(&j, "artifactLocation");
				cm_json_obj_begin(&j);
				char *uri = cm_uri_from_path(g->file);
				cm_json_kv_str(&j, "uri", uri ? uri : "");
				free(uri);
				if (g->file[0] != '/')
					cm_json_kv_str(&j, "uriBaseId", CM_SRCROOT);
				cm_json_obj_end(&j);
				if (g->line) {
					cm_json_key(&j, "region");
					cm_json_obj_begin(&j);
					cm_json_kv_int(&j, "startLine", g->line);
					if (g->col)
						cm_json_kv_int(&j, "startColumn", g->col);
					cm_json_obj_end(&j);
				}
				cm_json_obj_end(&j);
			}
			if (g->where || has_square(g)) {
				cm_json_key(&j, "logicalLocations");
				cm_json_arr_begin(&j);
				if (g->where) {
					cm_json_obj_begin(&j);
					cm_json_kv_str(&j, "fullyQualifiedName", g->where);
					cm_json_obj_end(&j);
				}
				if (has_square(g)) {
					char name[64];
					snprintf(name, sizeof name, "square (%d,%d)", g->x, g->y);
					cm_json_obj_begin(&j);
					cm_json_kv_str(&j, "name", name);
					cm_json_kv_str(&j, "kind", "object");
					cm_json_obj_end(&j);
				}
				cm_json_arr_end(&j);
			}
			cm_json_obj_end(&j);
			cm_json_arr_end(&j);
		}
		if (has_square(g)) {
			cm_json_key(&j, "properties");
			cm_json_obj_begin(&j);
			cm_json_key(&j, "square");
			write_square(&j, g);
			cm_json_obj_end(&j);
		}
		cm_json_obj_end(&j);
	}
	cm_json_arr_end(&j);
	cm_json_obj_end(&j);
	cm_json_arr_end(&j);
	cm_json_obj_end(&j);
	free(index);
	return cm_json_finish(&j) ? CM_EIO : 0;
}

/* Writes s for a workflow command: '%', CR and LF as %25, %0D, %0A, and in
 * a property value ':' and ',' as %3A and %2C too (GitHub's escaping
 * rules); other control characters as %HH so that one annotation is one
 * line. */
static void put_wf(FILE *f, const char *s, bool property)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		unsigned c = *p;
		if (c == '%' || c < 0x20 || c == 0x7F || (property && (c == ':' || c == ',')))
			fprintf(f, "%%%02X", c);
		else
			fputc((int)c, f);
	}
}

int cm_diags_write_github(const cm_diags *d, FILE *f)
{
	for (size_t i = 0; i < cm_diags_count(d); i++) {
		const cm_diag *g = cm_diags_get(d, i);
		const cm_check_info *ci = g->rule ? cm_catalog_find(g->rule) : NULL;
		fputs(g->severity == CM_SEV_ERROR ? "::error" : g->severity == CM_SEV_WARNING ? "::warning" : "::notice",
		      f);
		const char *sep = " ";
		if (g->file) {
			fputs(" file=", f);
			put_wf(f, g->file, true);
			sep = ",";
			if (g->line) {
				fprintf(f, ",line=%u", g->line);
				if (g->col)
					fprintf(f, ",col=%u", g->col);
			}
		}
		fputs(sep, f);
		fputs("title=", f);
		put_wf(f, ci ? ci->id : "carcamap", true);
		if (ci) {
			fputs(" ", f);
			put_wf(f, ci->title, true);
		}
		fputs("::", f);
		/* the place in the model, the message and the check id */
		char *esc = g->message ? cm_text_escape(g->message) : NULL;
		if (g->where) {
			char *w = cm_text_escape(g->where);
			put_wf(f, w ? w : "", false);
			free(w);
			fputs(": ", f);
		}
		put_wf(f, esc ? esc : "(out of memory)", false);
		free(esc);
		if (g->rule) {
			fputs(" [", f);
			put_wf(f, g->rule, false);
			fputc(']', f);
		}
		fputc('\n', f);
	}
	return ferror(f) ? CM_EIO : 0;
}
