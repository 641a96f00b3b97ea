#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stale/ignore.h"
#include "untrusted/confdir.h"
#include "base/saferead.h"
#include "base/grow.h"

struct ignore_rule {
	char *pattern; /* as written: fnmatch reads the backslash escapes itself */
	char *reason;
	/*
	 * What the pattern says literally before its first unescaped *, ? or
	 * [, escapes undone: a name that does not start with it cannot match,
	 * and fnmatch (which in a UTF-8 locale converts both strings to wide
	 * characters) is skipped.  A pattern that is all literal (exact) is
	 * matched by comparing with it alone.
	 */
	char *lit;
	size_t lit_len;
	bool exact;
};

/* Fill r->lit from r->pattern: 0, or -1 out of memory. */
static int literal_prefix(struct ignore_rule *r)
{
	const char *p = r->pattern;
	size_t n = 0;

	r->lit = malloc(strlen(p) + 1);
	if (!r->lit)
		return -1;
	r->exact = true;
	for (; *p; p++) {
		if (*p == '*' || *p == '?' || *p == '[') {
			r->exact = false;
			break;
		}
		if (*p == '\\' && p[1])
			p++;
		r->lit[n++] = *p;
	}
	r->lit[n] = '\0';
	r->lit_len = n;
	return 0;
}

struct ms_ignore {
	struct ignore_rule *rules;
	size_t count;
	size_t capacity;
};

size_t ms_name_strip_deleted(const char *name, size_t len)
{
	if (len >= MS_DELETED_SUFFIX_LEN &&
	    !memcmp(name + len - MS_DELETED_SUFFIX_LEN, MS_DELETED_SUFFIX, MS_DELETED_SUFFIX_LEN))
		return len - MS_DELETED_SUFFIX_LEN;
	return len;
}

void ms_ignore_free(struct ms_ignore *ign)
{
	if (!ign)
		return;
	for (size_t i = 0; i < ign->count; i++) {
		free(ign->rules[i].pattern);
		free(ign->rules[i].reason);
		free(ign->rules[i].lit);
	}
	free(ign->rules);
	free(ign);
}

size_t ms_ignore_count(const struct ms_ignore *ign)
{
	return ign ? ign->count : 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int add_rule(struct ms_ignore *ign, const char *pat, size_t pat_len,
		    const char *reason, size_t reason_len)
{
	struct ignore_rule *r;

	if (ms_grow((void **)&ign->rules, &ign->capacity, ign->count, sizeof(*ign->rules), 16) < 0)
		return -1;
	r = &ign->rules[ign->count];
	r->pattern = strndup(pat, pat_len);
	r->reason = strndup(reason, reason_len);
	r->lit = NULL;
	if (!r->pattern || !r->reason || literal_prefix(r) < 0) {
		free(r->pattern);
		free(r->reason);
		free(r->lit);
		return -1;
	}
	ign->count++;
	return 0;
}

/* One line, without its newline.  0, or MS_ERR_INVAL / MS_ERR_NOMEM. */
static int parse_line(struct ms_ignore *ign, const char *p, size_t len, unsigned lineno,
		      struct ms_error *err)
{
	size_t i = 0, pat_start, pat_end, reason_end;

	if (len > MS_IGNORE_LINE_MAX)
		return ms_error_set(err, MS_ERR_INVAL, 0, "line %u: longer than %u bytes", lineno, MS_IGNORE_LINE_MAX);
	if (memchr(p, '\0', len))
		return ms_error_set(err, MS_ERR_INVAL, 0, "line %u: holds a NUL byte", lineno);
	while (i < len && is_blank(p[i]))
		i++;
	if (i == len || p[i] == '#')
		return 0;
	pat_start = i;
	while (i < len && !is_blank(p[i])) {
		if (p[i] == '\\') {
			if (i + 1 == len)
				return ms_error_set(err, MS_ERR_INVAL, 0, "line %u: pattern ends in a lone backslash", lineno);
			i++;
		}
		i++;
	}
	pat_end = i;
	while (i < len && is_blank(p[i]))
		i++;
	reason_end = len;
	while (reason_end > i && is_blank(p[reason_end - 1]))
		reason_end--;
	if (i == reason_end)
		return ms_error_set(err, MS_ERR_INVAL, 0, "line %u: a rule needs a reason after its pattern", lineno);
	if (ign->count == MS_IGNORE_RULES_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "line %u: more than %u rules", lineno, MS_IGNORE_RULES_MAX);
	if (add_rule(ign, p + pat_start, pat_end - pat_start, p + i, reason_end - i) < 0)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	return 0;
}

int ms_ignore_parse(const char *text, size_t len, struct ms_ignore **out,
		    struct ms_error *err)
{
	struct ms_ignore *ign;
	unsigned lineno = 0;
	size_t pos = 0;

	*out = NULL;
	if (len > MS_IGNORE_TEXT_MAX)
		return ms_error_set(err, MS_ERR_LIMIT, 0, "larger than %u bytes", MS_IGNORE_TEXT_MAX);
	ign = calloc(1, sizeof(*ign));
	if (!ign)
		return ms_error_set(err, MS_ERR_NOMEM, ENOMEM, "out of memory");
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t line_len = nl ? (size_t)(nl - (text + pos)) : len - pos;
		int rc = parse_line(ign, text + pos, line_len, ++lineno, err);

		if (rc < 0) {
			ms_ignore_free(ign);
			return rc;
		}
		pos += line_len + (nl ? 1 : 0);
	}
	*out = ign;
	return 0;
}

int ms_ignore_load(const char *path, struct ms_ignore **out, struct ms_error *err)
{
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	rc = ms_read_regular(path, MS_IGNORE_TEXT_MAX, &buf, &len, err);
	if (rc < 0)
		return rc;
	rc = ms_ignore_parse(buf, len, out, err);
	free(buf);
	if (rc < 0 && err) {
		char why[MS_ERRMSG_MAX];

		memcpy(why, err->msg, sizeof(why));
		ms_error_set(err, err->code, err->sys_errno, "%s: %s", path, why);
	}
	return rc;
}

int ms_ignore_default(struct ms_ignore **out, struct ms_error *err)
{
	return ms_ignore_parse(ms_ignore_default_text, strlen(ms_ignore_default_text), out, err);
}

int ms_ignore_load_user(struct ms_ignore **out, struct ms_error *err)
{
	struct ms_confdir d;
	char *buf = NULL, shown[PATH_MAX + 64];
	size_t len;
	int rc;

	*out = NULL;
	if (ms_confdir_locate(&d) < 0)
		return ms_ignore_default(out, err);
	/*
	 * Another user's folder (root under sudo -E): none of it is read, and
	 * the defaults hold; so with another user's unreadable home (root's,
	 * for a tool run as nobody).  A file of ours we cannot read is still
	 * an error.
	 */
	rc = ms_confdir_open(&d, false, err);
	if (rc < 0 && (d.foreign || err->sys_errno == ENOENT || err->sys_errno == ENOTDIR ||
		       err->sys_errno == EACCES))
		return ms_ignore_default(out, err);
	if (rc == 0)
		rc = ms_confdir_read(&d, "stale-ignore.conf", MS_IGNORE_TEXT_MAX, &buf, &len, err);
	ms_confdir_close(&d);
	if (rc < 0)
		return err->sys_errno == ENOENT ? ms_ignore_default(out, err) : rc;
	rc = ms_ignore_parse(buf, len, out, err);
	free(buf);
	if (rc < 0 && err) {
		char why[MS_ERRMSG_MAX];

		memcpy(why, err->msg, sizeof(why));
		ms_confdir_shown(&d, "stale-ignore.conf", shown, sizeof(shown));
		ms_error_set(err, err->code, err->sys_errno, "%s: %s", shown, why);
	}
	return rc;
}

const char *ms_ignore_match(const struct ms_ignore *ign, const char *name, size_t len)
{
	char stack[PATH_MAX + 1];
	char *subject = stack;
	const char *reason = NULL;

	if (!ign || !ign->count)
		return NULL;
	len = ms_name_strip_deleted(name, len);
	if (len >= sizeof(stack) && !(subject = malloc(len + 1)))
		return NULL;
	memcpy(subject, name, len);
	subject[len] = '\0';
	for (size_t i = 0; i < ign->count && !reason; i++) {
		const struct ignore_rule *r = &ign->rules[i];

		if (r->lit_len > len || memcmp(r->lit, subject, r->lit_len) != 0)
			continue;
		if (r->exact ? r->lit_len == len : fnmatch(r->pattern, subject, 0) == 0)
			reason = r->reason;
	}
	if (subject != stack)
		free(subject);
	return reason;
}
