/* cli.c: helpers every subcommand shares (cli.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

int cli_parse_format(const char *cmd, const char *s, unsigned allowed, cli_format *out)
{
	static const char *const names[] = { "text", "json", "sarif" };
	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0 && (allowed & (1u << i))) {
			*out = (cli_format)i;
			return 0;
		}
	fprintf(stderr, "carcamap %s: unknown output format '%s' (use", cmd, s);
	int first = 1;
	for (int i = 0; i < 3; i++)
		if (allowed & (1u << i)) {
			fprintf(stderr, "%s%s", first ? " " : ", ", names[i]);
			first = 0;
		}
	fprintf(stderr, ")\n");
	return -1;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "carcamap %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'carcamap %s --help' for more information.\n", cmd);
	return EXIT_USAGE;
}

int cli_print_diags(cm_diags *d, cli_format fmt, int summary)
{
	int rc = 0;
	switch (fmt) {
	case FMT_TEXT:
		rc = cm_diags_write_text(d, stderr);
		if (summary) {
			char buf[128];
			cm_diags_summary(d, buf, sizeof buf);
			fprintf(stderr, "%s\n", buf);
		}
		break;
	case FMT_JSON:
		rc = cm_diags_write_json(d, stdout);
		break;
	case FMT_SARIF:
		rc = cm_diags_write_sarif(d, stdout);
		break;
	}
	if (fflush(stdout) != 0)
		rc = CM_EIO;
	return rc ? EXIT_IO : 0;
}

int cli_exit_code(int rc, const cm_diags *d)
{
	if (rc == CM_EIO || rc == CM_ENOMEM || rc == CM_EINTERNAL)
		return EXIT_IO;
	if (cm_diags_errors(d) || rc)
		return EXIT_PROBLEMS;
	return EXIT_CLEAN;
}

long cli_parse_uint(const char *s, long max)
{
	if (!s || !*s)
		return -1;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	errno = 0;
	char *end;
	long v = strtol(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	return v;
}
