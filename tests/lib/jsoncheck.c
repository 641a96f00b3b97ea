#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "jsoncheck.h"
#include "msrun.h"

json_t *jc_parse(const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);

	if (!root)
		fail_msg("bad JSON (%s) in: %s", jerr.text, text);
	return root;
}

int jc_run(char **out, const char *const *args)
{
	free(*out);
	*out = NULL;
	return msrun_capture(args, NULL, out, NULL);
}
