#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "jsoncheck.h"

json_t *jc_parse(const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);

	if (!root)
		fail_msg("bad JSON (%s) in: %s", jerr.text, text);
	return root;
}
